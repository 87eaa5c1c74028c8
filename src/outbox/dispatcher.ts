import { attemptsOf, classify, TENANT_WIDE_CODES, type Verdict } from './classify.js';
import type { NormalisedOutboxOptions, OutboxSender } from './outbox-options.js';
import type { EventPatch, StoredEvent } from './store.js';
import type { TenantQueue } from './tenant-queue.js';
import { applyVerdict } from './verdicts.js';

/** The state the dispatcher and the outbox's methods share. */
export interface OutboxContext {
  readonly options: NormalisedOutboxOptions;
  /** Every event the outbox holds, whatever its state. */
  readonly entries: Map<string, StoredEvent>;
  readonly tenants: Map<string, TenantQueue>;
  readonly counters: { delivered: number };
  tenant(tenantId: string): TenantQueue;
  /** Applies a change in memory, then makes it durable; the returned event is the new version. */
  patch(event: StoredEvent, patch: EventPatch): Promise<StoredEvent>;
  stopTenant(tenant: TenantQueue, reason: string): Promise<void>;
  /** Looks for work now (after an enqueue, a redelivery, a resume). */
  pump(): void;
}

/**
 * Runs deliveries: at most `concurrency` tenants at once, one event per tenant (its head), tenants
 * taken in turn so a busy one cannot starve the others. Sleeps until the earliest retry or probe.
 */
export class Dispatcher {
  private running = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private waiters: (() => void)[] = [];

  constructor(private readonly ctx: OutboxContext) {}

  start(): void {
    this.running = true;
    this.pump();
  }

  /** Stops launching; returns what is still in flight. */
  stop(): Promise<void>[] {
    this.running = false;
    clearTimeout(this.timer);
    // A flush waiting for a retry timer that will no longer fire must not hang.
    this.notify();
    return [...this.inFlight];
  }

  abortAll(): void {
    for (const tenant of this.ctx.tenants.values()) tenant.inFlight?.abort();
  }

  /** Resolves once nothing is deliverable right now (see `TenantQueue.settled`). */
  whenSettled(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.notify();
    });
  }

  pump(): void {
    if (this.running) {
      const now = this.ctx.options.now();
      let wake = Number.POSITIVE_INFINITY;
      for (const tenant of [...this.ctx.tenants.values()]) {
        if (this.inFlight.size >= this.ctx.options.concurrency) break;
        if (tenant.ready(now)) {
          this.launch(tenant);
          // Round robin: the tenant just served goes to the back of the line.
          this.ctx.tenants.delete(tenant.tenantId);
          this.ctx.tenants.set(tenant.tenantId, tenant);
        } else if (!tenant.inFlight && tenant.state !== 'stopped' && tenant.size > 0) {
          wake = Math.min(wake, tenant.nextAt);
        }
      }
      clearTimeout(this.timer);
      if (wake < Number.POSITIVE_INFINITY) {
        // Unref'd: a queue waiting to retry must not keep a finished program alive.
        this.timer = setTimeout(() => this.pump(), Math.max(0, wake - now));
        this.timer.unref?.();
      }
    }
    this.notify();
  }

  private notify(): void {
    if (this.waiters.length === 0) return;
    const now = this.ctx.options.now();
    const settled = this.running
      ? [...this.ctx.tenants.values()].every((tenant) => tenant.settled(now))
      : this.inFlight.size === 0;
    if (!settled) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private launch(tenant: TenantQueue): void {
    const controller = new AbortController();
    tenant.inFlight = controller;
    const run = this.attempt(tenant, controller.signal).finally(() => {
      tenant.inFlight = undefined;
      this.inFlight.delete(run);
      this.pump();
    });
    this.inFlight.add(run);
  }

  private async attempt(tenant: TenantQueue, signal: AbortSignal): Promise<void> {
    const { options } = this.ctx;
    let event = tenant.head!;
    const startedAt = options.now();
    if (event.firstAttemptAt !== null && startedAt - event.firstAttemptAt > options.expireAfterMs) {
      return applyVerdict(this.ctx, tenant, event, { kind: 'expire' }, 0);
    }
    let sender: OutboxSender;
    try {
      // Recorded before the first attempt goes out: after a crash, the age of the oldest attempt
      // the service may have seen must be known, or the 24-hour dedup window could be overrun.
      if (event.firstAttemptAt === null) event = await this.ctx.patch(event, { firstAttemptAt: startedAt });
      sender = await this.senderOf(tenant);
    } catch (err) {
      const failure = { code: 'OUTBOX_NOT_SENT', message: err instanceof Error ? err.message : String(err) };
      return applyVerdict(this.ctx, tenant, event, { kind: 'retry', failure, answered: false }, 0);
    }
    let verdict: Verdict;
    let attempts: number;
    try {
      // The client then stops its own retries before the 23-hour mark of the first attempt.
      const result = await sender.sendEnvelope(event.envelope, {
        signal,
        firstAttemptAt: event.firstAttemptAt!,
        // The outbox pauses or stops the whole tenant on these; one attempt per probe is enough.
        noRetryCodes: TENANT_WIDE_CODES,
      });
      verdict = {
        kind: 'delivered',
        status: result.status,
        correlationId: result.correlationId,
        alreadyCredited: false,
      };
      attempts = result.attempts;
    } catch (err) {
      verdict = classify(err, signal.aborted);
      attempts = attemptsOf(err);
    }
    await applyVerdict(this.ctx, tenant, event, verdict, attempts);
  }

  private senderOf(tenant: TenantQueue): Promise<OutboxSender> {
    if (tenant.sender) return tenant.sender;
    const lookup = Promise.resolve(this.ctx.options.senderFor(tenant.tenantId));
    // A failed lookup is not cached: the next attempt asks again.
    lookup.catch(() => {
      if (tenant.sender === lookup) tenant.sender = undefined;
    });
    tenant.sender = lookup;
    return lookup;
  }
}
