import type { InboundEventType, PayloadInput } from '../contract/index.js';
import { Dispatcher, type OutboxContext } from './dispatcher.js';
import { OutboxClosedError, OutboxEventStateError, OutboxNotStartedError } from './errors.js';
import { newEvent } from './new-event.js';
import { CLOSE_DEFAULTS, type EnqueueOptions, type Outbox, type OutboxStats } from './outbox-api.js';
import {
  type NormalisedOutboxOptions,
  normaliseOutboxOptions,
  type OutboxOptions,
  type OutboxSender,
} from './outbox-options.js';
import type { EventPatch, EventState, StoredEvent } from './store.js';
import { discard, redeliver, resumeTenant, stopTenant } from './tenant-control.js';
import { TenantQueue } from './tenant-queue.js';

/**
 * A durable queue in front of the client: `enqueue` resolves once the event is on disk, and the
 * outbox delivers it whenever the service can be reached, in order per tenant, counted once per
 * `eventId` by the service's 24-hour dedup. Every outcome is observable (`hooks`, `list`, `stats`).
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * const outbox = createOutbox({ client, store: fileStore('/var/lib/pos/loyalty-outbox') });
 * await outbox.start();
 * const { eventId } = await outbox.enqueue('CouponUsed', { externalCouponId: 'k-1', externalCustomerId: 'c-1', externalInvoiceId: 'i-1' });
 * await outbox.close({ deadlineMs: 2_000 });
 * ```
 */
export function createOutbox(options: OutboxOptions): Outbox {
  return new DurableOutbox(normaliseOutboxOptions(options));
}

class DurableOutbox implements Outbox {
  private readonly ctx: OutboxContext;
  private readonly dispatcher: Dispatcher;
  private readonly enqueuing = new Map<string, Promise<{ eventId: string }>>();
  private phase: 'new' | 'running' | 'closing' | 'closed' = 'new';
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private nextSeq = 1;

  constructor(private readonly options: NormalisedOutboxOptions) {
    const tenants = new Map<string, TenantQueue>();
    this.ctx = {
      options,
      entries: new Map(),
      tenants,
      counters: { delivered: 0 },
      tenant: (tenantId) => {
        const known = tenants.get(tenantId);
        if (known) return known;
        const tenant = new TenantQueue(tenantId, options.now());
        tenants.set(tenantId, tenant);
        return tenant;
      },
      patch: (event, patch) => this.patch(event, patch),
      stopTenant: (tenant, reason) => stopTenant(this.ctx, tenant, reason),
      pump: () => this.dispatcher.pump(),
    };
    this.dispatcher = new Dispatcher(this.ctx);
  }

  start(): Promise<void> {
    if (this.phase === 'closing' || this.phase === 'closed') return Promise.reject(new OutboxClosedError());
    this.starting ??= this.load();
    return this.starting;
  }

  enqueue<T extends InboundEventType>(
    eventType: T,
    payload: PayloadInput<T>,
    options: EnqueueOptions = {},
  ): Promise<{ eventId: string }> {
    try {
      this.assertRunning();
      const defaults = { tenantId: this.options.defaultTenantId, seq: this.nextSeq, now: this.options.now() };
      const event = newEvent(eventType, payload, options, defaults);
      const { eventId } = event;
      const known = this.enqueuing.get(eventId);
      if (known) return known;
      if (this.ctx.entries.has(eventId)) return Promise.resolve({ eventId });
      this.nextSeq += 1;
      const durable = this.options.store.append(event).then(() => {
        this.ctx.entries.set(eventId, event);
        this.ctx.tenant(event.tenantId).insert(event);
        this.dispatcher.pump();
        return { eventId };
      });
      this.enqueuing.set(eventId, durable);
      return durable.finally(() => this.enqueuing.delete(eventId));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async flush(): Promise<OutboxStats> {
    this.assertRunning();
    await Promise.allSettled(this.enqueuing.values());
    await this.dispatcher.whenSettled();
    return this.stats();
  }

  close(options: { deadlineMs?: number } = {}): Promise<void> {
    this.closing ??= this.shutDown(options.deadlineMs ?? CLOSE_DEFAULTS.deadlineMs);
    return this.closing;
  }

  list(state: EventState, filter: { tenantId?: string } = {}): StoredEvent[] {
    const wanted = (event: StoredEvent) =>
      event.state === state && (filter.tenantId === undefined || event.tenantId === filter.tenantId);
    return [...this.ctx.entries.values()].filter(wanted).sort((a, b) => a.seq - b.seq);
  }

  get(eventId: string): StoredEvent | undefined {
    return this.ctx.entries.get(eventId);
  }

  stats(): OutboxStats {
    const counts: Record<EventState, number> = { pending: 0, parked: 0, dead: 0, expired: 0 };
    for (const event of this.ctx.entries.values()) counts[event.state] += 1;
    const tenants = [...this.ctx.tenants.values()];
    return {
      ...counts,
      inFlight: tenants.filter((tenant) => tenant.inFlight).length,
      delivered: this.ctx.counters.delivered,
      tenants: tenants.map((tenant) => tenant.status()).sort((a, b) => a.tenantId.localeCompare(b.tenantId)),
    };
  }

  redeliver(eventId: string, options: { acceptDuplicateRisk?: boolean } = {}): Promise<void> {
    return this.withEvent(eventId, 'redeliver', (event) => redeliver(this.ctx, event, options));
  }

  discard(eventId: string): Promise<void> {
    return this.withEvent(eventId, 'discard', (event) => discard(this.ctx, event));
  }

  async resumeTenant(tenantId: string, options: { client?: OutboxSender } = {}): Promise<void> {
    this.assertRunning();
    await resumeTenant(this.ctx, this.ctx.tenant(tenantId), options);
  }

  async stopTenant(tenantId: string, reason: string): Promise<void> {
    this.assertRunning();
    await stopTenant(this.ctx, this.ctx.tenant(tenantId), reason);
  }

  private async load(): Promise<void> {
    const snapshot = await this.options.store.open().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    for (const stop of snapshot.stoppedTenants) {
      this.ctx.tenant(stop.tenantId).setState('stopped', stop.reason, stop.since);
    }
    for (const event of snapshot.events) {
      this.ctx.entries.set(event.eventId, event);
      if (event.state === 'pending') this.ctx.tenant(event.tenantId).insert(event);
      this.nextSeq = Math.max(this.nextSeq, event.seq + 1);
    }
    if (this.phase !== 'new') return; // close() was called while the store opened.
    this.phase = 'running';
    this.dispatcher.start();
  }

  private async shutDown(deadlineMs: number): Promise<void> {
    if (this.phase === 'new' && !this.starting) {
      this.phase = 'closed';
      return;
    }
    this.phase = 'closing';
    await this.starting?.catch(() => undefined);
    const inFlight = this.dispatcher.stop();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
    });
    await Promise.race([Promise.all(inFlight), deadline]);
    clearTimeout(timer);
    this.dispatcher.abortAll();
    await Promise.all(inFlight);
    await Promise.allSettled(this.enqueuing.values());
    this.phase = 'closed';
    await this.options.store.close();
  }

  private async patch(event: StoredEvent, patch: EventPatch): Promise<StoredEvent> {
    const next: StoredEvent = { ...event, ...patch };
    this.ctx.entries.set(event.eventId, next);
    this.ctx.tenants.get(event.tenantId)?.replace(next);
    await this.options.store.update(event.eventId, patch);
    return next;
  }

  private async withEvent(
    eventId: string,
    action: string,
    run: (event: StoredEvent) => Promise<void>,
  ): Promise<void> {
    this.assertRunning();
    const event = this.ctx.entries.get(eventId);
    if (!event) throw new OutboxEventStateError(eventId, 'unknown', action);
    await run(event);
  }

  private assertRunning(): void {
    if (this.phase === 'closing' || this.phase === 'closed') throw new OutboxClosedError();
    if (this.phase !== 'running') throw new OutboxNotStartedError();
  }
}
