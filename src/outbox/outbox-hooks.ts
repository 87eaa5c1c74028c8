import { type OutboxInstruments, telemetryHooks } from '../telemetry/outbox-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import type { StoredEvent } from './store.js';

/** An event that reached an outcome, with why. */
export interface OutcomeInfo {
  readonly event: StoredEvent;
  /** The service's error code (or the SDK's, for an envelope it refused to send). */
  readonly code: string;
  readonly message: string;
}

/** What `onDelivered` sees. */
export interface DeliveredInfo {
  readonly event: StoredEvent;
  /** HTTP status of the final answer: 200, or 400 when `alreadyCredited`. */
  readonly status: number;
  readonly correlationId: string | undefined;
  /** HTTP attempts of this event, across retries and restarts. */
  readonly attempts: number;
  /**
   * `true` when the service answered `PARTNER_INVOICE_ALREADY_EARNED`: the invoice was credited
   * already (by this event's earlier attempt, or under another eventId), so nothing is missing.
   */
  readonly alreadyCredited: boolean;
}

/**
 * Observers of every outcome, so none is silent: wire them to logs, metrics or a back-office
 * screen. Hooks receive events and codes, never credentials. A hook that throws is ignored and a
 * returned promise is not awaited: observing can never block or lose an event.
 *
 * @example
 * ```ts
 * import type { OutboxHooks } from 'loyalty-partner-sdk/outbox';
 * const hooks: OutboxHooks = {
 *   onParked: ({ event, code }) => console.warn(`parked ${event.eventId}: ${code}`),
 *   onTenantStopped: ({ tenantId, reason }) => console.error(`tenant ${tenantId} stopped: ${reason}`),
 * };
 * ```
 */
export interface OutboxHooks {
  onDelivered?(info: DeliveredInfo): unknown;
  /** A state-dependent 400 (`fix-setup`): the event waits aside for `redeliver(eventId)`. */
  onParked?(info: OutcomeInfo): unknown;
  /** A defective event (`fix-payload`, `stop`): it stays listed until `discard(eventId)`. */
  onDead?(info: OutcomeInfo): unknown;
  /** A retry would risk a double credit: decide with `redeliver(..., { acceptDuplicateRisk })` or `discard`. */
  onExpired?(info: { readonly event: StoredEvent }): unknown;
  /** A transient failure; the tenant's head event is tried again after `delayMs`. */
  onRetry?(info: OutcomeInfo & { readonly delayMs: number }): unknown;
  /** The whole tenant waits, probing slowly with its head event (`code`: INTEGRATION_PAUSED, ...). */
  onTenantPaused?(info: { readonly tenantId: string; readonly code: string }): unknown;
  /** The tenant sends nothing until `resumeTenant` (`reason`: Disabled, Disconnected or a code). */
  onTenantStopped?(info: { readonly tenantId: string; readonly reason: string }): unknown;
  onTenantResumed?(info: { readonly tenantId: string }): unknown;
}

type EventHookName = 'onDelivered' | 'onParked' | 'onDead' | 'onExpired' | 'onRetry';

/** An event's hook and its argument: decided with the outcome (`verdicts.ts`), called once it is recorded. */
export type EventHook = {
  [Name in EventHookName]: { readonly name: Name; readonly info: Parameters<Required<OutboxHooks>[Name]>[0] };
}[EventHookName];

/** The user's hooks, each after the outbox's log line and count; the user's return value passes on. */
export function withTelemetryHooks(hooks: OutboxHooks, telemetry: Telemetry<OutboxInstruments>): OutboxHooks {
  const ours = telemetryHooks(telemetry) as Required<Record<keyof OutboxHooks, (info: never) => void>>;
  const combined: Record<string, (info: never) => unknown> = {};
  for (const name of Object.keys(ours) as (keyof OutboxHooks)[]) {
    const user = hooks[name] as ((info: never) => unknown) | undefined;
    combined[name] = (info) => {
      ours[name](info);
      return user?.call(hooks, info);
    };
  }
  return combined as OutboxHooks;
}
