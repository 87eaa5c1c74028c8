import { type InboundEventType, LoyaltyValidationError, type PayloadInput } from '../contract/index.js';
import { withDeadline } from '../internal/deadline.js';
import { createSpan, type OutboxGaugeReading, observeOutbox } from '../telemetry/outbox-telemetry.js';
import { causalKeys } from './causal-keys.js';
import { OutboxClosedError, OutboxEventStateError, OutboxNotStartedError } from './errors.js';
import { LocalQueue } from './local-queue.js';
import { newEvent } from './new-event.js';
import type { EnqueueOptions, Outbox, OutboxStats, SharedOutbox } from './outbox-api.js';
import {
  type MultiTenantOptions,
  type NormalizedOutboxOptions,
  normalizeOutboxOptions,
  type OutboxOptions,
  type OutboxSender,
} from './outbox-options.js';
import { Scheduler } from './scheduler.js';
import type { EventState, LocalStore, SharedStore, StoredEvent } from './store.js';
import { redeliver, restoreTenant, resumeTenant, stopTenant } from './tenant-control.js';

/**
 * A durable queue in front of the client: `enqueue` resolves once the event is stored, and the
 * outbox delivers it whenever the service can be reached: up to `maxInFlight` events of a tenant
 * at once, each only after every earlier event about the same customer, invoice, coupon, branch
 * or product was answered for the last time. The service counts each `eventId` once (24-hour
 * dedup). Every outcome is observable (`hooks`, `list`, `stats`).
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
export function createOutbox<Tx>(
  options: OutboxOptions<SharedStore<Tx>> & MultiTenantOptions,
): SharedOutbox<Tx, 'multi'>;
export function createOutbox<Tx>(options: OutboxOptions<SharedStore<Tx>>): SharedOutbox<Tx>;
export function createOutbox(options: OutboxOptions<LocalStore> & MultiTenantOptions): Outbox<'multi'>;
export function createOutbox(options: OutboxOptions<LocalStore>): Outbox;
export function createOutbox(options: OutboxOptions): unknown {
  return new DurableOutbox(normalizeOutboxOptions(options));
}

class DurableOutbox {
  private readonly scheduler: Scheduler;
  /** Where events are stored and claimed from: the shared store, or the local store's queue (read at once). */
  private readonly source: SharedStore<unknown> | LocalQueue;
  private readonly local: LocalQueue | undefined;
  private readonly enqueuing = new Map<string, Promise<{ eventId: string }>>();
  private phase: 'new' | 'running' | 'closing' | 'closed' = 'new';
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private nextSeq = 1;
  private unobserve: () => void = () => undefined;
  private unwatch: () => Promise<void> = async () => undefined;

  constructor(private readonly options: NormalizedOutboxOptions) {
    const { store } = options;
    this.source = store.kind === 'local' ? new LocalQueue(store, options.monotonic) : store;
    this.local = this.source instanceof LocalQueue ? this.source : undefined;
    this.scheduler = new Scheduler(options, this.source, this.local);
  }

  start(): Promise<void> {
    if (this.phase === 'closing' || this.phase === 'closed') return Promise.reject(new OutboxClosedError());
    // A failed start (the store could not be opened) may be tried again.
    this.starting ??= this.load().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  enqueue<T extends InboundEventType>(
    eventType: T,
    payload: PayloadInput<T>,
    options: EnqueueOptions<unknown> = {},
  ): Promise<{ eventId: string }> {
    try {
      this.assertRunning();
      if (options.tx !== undefined && this.local) {
        throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid enqueue options', [
          {
            path: 'tx',
            message: 'only a shared store (postgresStore) writes with your transaction; drop tx',
          },
        ]);
      }
      const defaults = { tenantId: this.options.defaultTenantId, seq: this.nextSeq, now: this.options.now() };
      const built = newEvent(eventType, payload, options, defaults);
      const { eventId } = built;
      const known = this.enqueuing.get(eventId);
      if (known) return known;
      if (this.local?.get(eventId)) return Promise.resolve({ eventId });
      const event = withCreateSpan(this.options, built);
      this.nextSeq += 1;
      const durable = this.source
        .append(event, {
          keys: causalKeys(event.envelope),
          tx: options.tx,
          freshEventId: options.eventId === undefined,
        })
        .then(() => {
          // Inside the caller's transaction the row is not visible yet; the poll finds it later.
          if (options.tx === undefined) this.scheduler.enqueued(event.tenantId);
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
    await this.scheduler.whenSettled();
    return this.stats();
  }

  close({ deadlineMs = 5_000 }: { deadlineMs?: number } = {}): Promise<void> {
    this.closing ??= this.shutDown(deadlineMs);
    return this.closing;
  }

  list(state: EventState, filter: { tenantId?: string } = {}): StoredEvent[] | Promise<StoredEvent[]> {
    return this.source.list(state, filter);
  }

  get(eventId: string): StoredEvent | undefined | Promise<StoredEvent | undefined> {
    return this.source.get(eventId);
  }

  stats(): OutboxStats | Promise<OutboxStats> {
    const counts = this.source.counts();
    return 'then' in counts ? counts.then((all) => this.statsFrom(all)) : this.statsFrom(counts);
  }

  redeliver(eventId: string, options: { acceptDuplicateRisk?: boolean } = {}): Promise<void> {
    return this.withEvent(eventId, 'redeliver', (event) => redeliver(this.source, event, options));
  }

  discard(eventId: string): Promise<void> {
    return this.withEvent(eventId, 'discard', async () => {
      if (this.scheduler.isInFlight(eventId))
        throw new OutboxEventStateError(eventId, 'in-flight', 'discard');
      await this.source.remove([eventId]);
    });
  }

  async resumeTenant(tenantId: string, options: { client?: OutboxSender } = {}): Promise<void> {
    this.assertRunning();
    const settings = { ...this.options, shared: !this.local };
    await resumeTenant(this.source, settings, this.scheduler.tenant(tenantId), options.client);
    this.scheduler.pump();
  }

  async stopTenant(tenantId: string, reason: string): Promise<void> {
    this.assertRunning();
    await stopTenant(this.source, this.options, this.scheduler.tenant(tenantId), reason);
  }

  /** What the gauges report, per tenant; with a local store, every tenant this process knows. */
  private async gaugeReadings(): Promise<OutboxGaugeReading[]> {
    const counts = (await this.source.countsByTenant?.()) ?? [];
    const readings = counts.map(({ tenantId, states, oldestPendingAt }) => ({
      tenantId,
      pending: states.pending ?? 0,
      oldestEnqueuedAt: oldestPendingAt ?? undefined,
      states,
    }));
    if (!this.local) return readings;
    const counted = new Set(counts.map((count) => count.tenantId));
    for (const tenantId of this.scheduler.tenants.keys()) {
      if (!counted.has(tenantId))
        readings.push({ tenantId, pending: 0, oldestEnqueuedAt: undefined, states: {} });
    }
    return readings;
  }

  private statsFrom(counts: Readonly<Record<EventState, number>>): OutboxStats {
    const tenants = [...this.scheduler.tenants.values()]
      .map((tenant) => tenant.status(this.local?.pendingOf(tenant.tenantId)))
      .sort((a, b) => a.tenantId.localeCompare(b.tenantId));
    return { ...counts, inFlight: this.scheduler.inFlight, delivered: this.scheduler.delivered, tenants };
  }

  private async load(): Promise<void> {
    const { store } = this.options;
    const opened = await this.source.open();
    for (const stop of opened.stoppedTenants) {
      restoreTenant(this.scheduler.tenant(stop.tenantId), stop, this.options);
    }
    if (this.local) {
      this.nextSeq = this.local.lastSeq + 1;
      for (const event of this.local.list('pending')) this.scheduler.tenant(event.tenantId);
    } else if (store.kind === 'shared' && store.watch) {
      // Listening before the first claim: an event committed after it finds nothing is not missed.
      this.unwatch = await store.watch(() => this.scheduler.pump());
    }
    if (this.phase !== 'new') {
      // close() was called while the store opened.
      await this.stopWatching();
      return;
    }
    this.phase = 'running';
    this.unobserve = observeOutbox(this.options.telemetry, () => this.gaugeReadings(), this.options.now);
    this.scheduler.start();
  }

  private async shutDown(deadlineMs: number): Promise<void> {
    if (this.phase === 'new' && !this.starting) {
      this.phase = 'closed';
      return;
    }
    this.phase = 'closing';
    await this.starting?.catch(() => undefined);
    this.unobserve();
    const inFlight = this.scheduler.stop();
    // Sends in flight never reject: only the deadline does.
    await Promise.resolve(withDeadline(Promise.all(inFlight), deadlineMs)).catch(() => undefined);
    // The aborted sends settle at once; a claim still on the wire past the deadline is not
    // waited for (a connection that stopped answering would hold close() up forever).
    await Promise.all(this.scheduler.abortAll());
    await Promise.allSettled(this.enqueuing.values());
    this.phase = 'closed';
    await this.stopWatching().catch(() => undefined);
    await this.source.close();
  }

  private stopWatching(): Promise<void> {
    const stop = this.unwatch;
    this.unwatch = async () => undefined;
    return stop();
  }

  private async withEvent(
    eventId: string,
    action: string,
    run: (event: StoredEvent) => Promise<void>,
  ): Promise<void> {
    this.assertRunning();
    const event = await this.get(eventId);
    if (!event) throw new OutboxEventStateError(eventId, 'unknown', action);
    await run(event);
    this.scheduler.forget(eventId);
    this.scheduler.pump();
  }

  private assertRunning(): void {
    if (this.phase === 'closing' || this.phase === 'closed') throw new OutboxClosedError();
    if (this.phase !== 'running') throw new OutboxNotStartedError();
  }
}

/** The event with the `traceparent` of its `create` span, when tracing is on. */
function withCreateSpan(options: NormalizedOutboxOptions, event: StoredEvent): StoredEvent {
  const traceparent = createSpan(options.telemetry, {
    eventType: event.envelope.eventType,
    eventId: event.eventId,
    tenantId: event.tenantId,
    correlationId: event.envelope.correlationId,
  });
  return traceparent === undefined ? event : { ...event, traceparent };
}
