import type { OutboxSender } from './outbox-options.js';
import type { StoredEvent } from './store.js';

/**
 * - `active`: delivers its pending events, head first.
 * - `paused`: the service refuses the whole tenant for now (INTEGRATION_PAUSED, ...); the head
 *   event probes every `probeIntervalMs` and the first answer that is not a pause resumes it.
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
  /** Events waiting to be delivered (parked, dead and expired ones not included). */
  readonly pending: number;
}

/**
 * One tenant's FIFO: the pending events in enqueue order and whether the head may go now.
 * Parked, dead and expired events are not in it, so they never block the events behind them.
 */
export class TenantQueue {
  state: TenantState = 'active';
  reason: string | undefined;
  since: number;
  /** Earliest time the head may be tried (after a failure, or the next probe). */
  nextAt = 0;
  /** Transient failures in a row, for the backoff. */
  failures = 0;
  inFlight: AbortController | undefined;
  sender: Promise<OutboxSender> | undefined;
  private readonly events: StoredEvent[] = [];

  constructor(
    readonly tenantId: string,
    now: number,
  ) {
    this.since = now;
  }

  get head(): StoredEvent | undefined {
    return this.events[0];
  }

  get size(): number {
    return this.events.length;
  }

  /** Inserts by `seq`: a redelivered event takes back its place ahead of younger ones. */
  insert(event: StoredEvent): void {
    let i = this.events.length;
    while (i > 0 && this.events[i - 1]!.seq > event.seq) i -= 1;
    this.events.splice(i, 0, event);
  }

  replace(event: StoredEvent): void {
    const i = this.events.findIndex((candidate) => candidate.eventId === event.eventId);
    if (i >= 0) this.events[i] = event;
  }

  remove(eventId: string): void {
    const i = this.events.findIndex((candidate) => candidate.eventId === eventId);
    if (i >= 0) this.events.splice(i, 1);
  }

  setState(state: TenantState, reason: string | undefined, now: number): void {
    this.state = state;
    this.reason = reason;
    this.since = now;
  }

  /** May its head go out now? */
  ready(now: number): boolean {
    return this.state !== 'stopped' && !this.inFlight && this.events.length > 0 && this.nextAt <= now;
  }

  /**
   * Nothing deliverable right now: idle, or waiting after a failure, or paused, or stopped.
   * `flush()` resolves when every tenant is settled.
   */
  settled(now: number): boolean {
    return !this.inFlight && (this.state !== 'active' || this.events.length === 0 || this.nextAt > now);
  }

  status(): TenantStatus {
    return {
      tenantId: this.tenantId,
      state: this.state,
      reason: this.reason,
      since: this.since,
      pending: this.size,
    };
  }
}
