import type { OutboxSender } from './outbox-options.js';

/**
 * - `active`: delivers its pending events, up to `maxInFlight` at once in causal order.
 * - `paused`: the service refuses the whole tenant for now (INTEGRATION_PAUSED, ...); one event
 *   probes every `probeIntervalMs` and the first answer that is not a pause resumes it.
 * - `stopped`: sends nothing until `resumeTenant` (Disabled, Disconnected, credentials refused).
 */
export type TenantState = 'active' | 'paused' | 'stopped';

/** What `outbox.stats().tenants` reports for one tenant. */
export interface TenantStatus {
  readonly tenantId: string;
  readonly state: TenantState;
  /** The code or status that paused or stopped the tenant. */
  readonly reason: string | undefined;
  /** Unix milliseconds of the last change of state. */
  readonly since: number;
  /** Events of the tenant being sent right now by this process. */
  readonly inFlight: number;
  /**
   * Events waiting to be delivered, in flight included (parked, dead, expired not). Known with
   * a local store only: a shared store's rows belong to every process.
   */
  readonly pending?: number | undefined;
}

/** What the scheduler knows about one tenant in this process. */
export class Tenant {
  state: TenantState = 'active';
  reason: string | undefined;
  since: number;
  /** Events of this tenant in flight from this process. */
  inFlight = 0;
  /** Monotonic milliseconds of the next probe while paused. */
  probeAt = 0;
  /** Monotonic ms before which nothing of it is claimed: a `Retry-After`. */
  holdUntil = 0;
  /** Offline with a reconnect window: only its probe is sent until the link answers. */
  probing = false;
  /** Monotonic ms of its next probe while offline: a point of its own period, drawn once. */
  nextProbe = 0;
  /** A wait of the service is kept in the store for it, to clear once it is over. */
  keptWait = false;
  sender: Promise<OutboxSender> | undefined;

  constructor(
    readonly tenantId: string,
    now: number,
  ) {
    this.since = now;
  }

  setState(state: TenantState, reason: string | undefined, now: number): void {
    this.state = state;
    this.reason = reason;
    this.since = now;
  }

  /** Whether its events may be claimed now (active, not held, not probing). */
  sendsAt(monotonicNow: number): boolean {
    return this.state === 'active' && this.holdUntil <= monotonicNow && !this.probing;
  }

  /** Whether one event is claimed now as its probe (paused, or offline: see `probing`). */
  probesAt(monotonicNow: number): boolean {
    if (this.inFlight > 0) return false;
    if (this.state === 'paused') return this.probeAt <= monotonicNow;
    return this.state === 'active' && this.probing && this.holdUntil <= monotonicNow;
  }

  status(pending: number | undefined): TenantStatus {
    const { tenantId, state, reason, since, inFlight } = this;
    return { tenantId, state, reason, since, inFlight, pending };
  }
}
