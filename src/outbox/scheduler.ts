import { setMaxListeners } from 'node:events';
import { callHook } from '../contract/call-hook.js';
import { writeLog } from '../contract/logger.js';
import { ClaimLoop } from '../internal/claim-loop.js';
import { attemptsOf, classify, PROBE_NO_RETRY_CODES, TENANT_WIDE_CODES, type Verdict } from './classify.js';
import type { LocalQueue } from './local-queue.js';
import type { EventHook } from './outbox-hooks.js';
import type { NormalizedOutboxOptions, OutboxSender } from './outbox-options.js';
import type { ClaimOutcome, ClaimRequest, ClaimSource, StoredEvent } from './store.js';
import { followService, resume, stopTenant } from './tenant-control.js';
import { Tenant } from './tenant-state.js';
import { type Decision, decide } from './verdicts.js';

/** Near its cap, a shared store's tenant claims again once half its slots are free, or 5 ms later. */
const CLAIM_BATCH_FRACTION = 2;
const CLAIM_BATCH_WAIT_MS = 5;

/**
 * The one scheduler of every store: claims due, causally ready events (up to `maxInFlight` per
 * tenant) from the local queue or the shared store, sends each, and records how it ended.
 */
export class Scheduler {
  readonly tenants = new Map<string, Tenant>();
  /** Events this process delivered (their outcome recorded) since it started. */
  delivered = 0;
  /** Transient failures in a row per event, for the backoff (this process's memory). */
  private readonly failures = new Map<string, number>();
  private readonly loop: ClaimLoop<ClaimOutcome>;
  /** The last fill found nothing more to send right now. */
  private drained = false;
  /** Events being sent, by id, with their tenant: they count against its `maxInFlight`. */
  private readonly flights = new Map<string, Tenant>();
  /** One signal for every flight: `close()` gives up on all of them at once, never on one. */
  private readonly aborter = new AbortController();
  private waiters: (() => void)[] = [];
  /** Tenants with answers that landed during a shared store's claim: decided once it counts. */
  private readonly landedDuringFill = new Set<Tenant>();
  /** Tenants with events enqueued while a shared store's claim was under way. */
  private readonly enqueuedDuringFill = new Set<string>();

  /** @param local The same object as `source` for a local store (its `LocalQueue`). */
  constructor(
    private readonly options: NormalizedOutboxOptions,
    private readonly source: ClaimSource,
    private readonly local: LocalQueue | undefined,
  ) {
    // Every flight's call listens to it; each listener is removed as its call ends.
    setMaxListeners(0, this.aborter.signal);
    this.loop = new ClaimLoop<ClaimOutcome>({
      carries: !local && source.recordAndClaim !== undefined,
      idOf: (outcome) => outcome.eventId,
      write: (batch) => source.record(batch),
      // A local store's claims are this process's alone: no lease to renew.
      renew: local ? undefined : (ids) => source.extendLease(ids, options.leaseMs),
      leaseMs: options.leaseMs,
      look: () => this.fill(),
      nextLookIn: (reachable) => this.nextLookIn(reachable),
      afterLook: () => this.afterFill(),
    });
  }

  tenant(tenantId: string): Tenant {
    const tenant = this.tenants.get(tenantId) ?? new Tenant(tenantId, this.options.now());
    this.tenants.set(tenantId, tenant);
    return tenant;
  }

  /** The operator redelivered or discarded the event: its backoff starts afresh. */
  forget(eventId: string): void {
    this.failures.delete(eventId);
  }

  get inFlight(): number {
    return this.flights.size;
  }

  isInFlight(eventId: string): boolean {
    return this.flights.has(eventId);
  }

  start(): void {
    this.drained = false;
    this.loop.start();
  }

  /** Stops launching; returns what is still in flight, the claim under way included. */
  stop(): Promise<void>[] {
    const runs = this.loop.stop();
    // A flush waiting for a retry timer that will no longer fire must not hang.
    this.notify();
    return runs;
  }

  /** Gives up on every send under way; returns them (each settles soon after). */
  abortAll(): Promise<void>[] {
    this.aborter.abort();
    return [...this.loop.runs.values()];
  }

  /** Looks for work now (a commit in the caller's transaction woke no one); resolves once idle. */
  whenSettled(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.pump();
    });
  }

  /** An event was enqueued: look for work, unless a shared store's tenant is at its cap. */
  enqueued(tenantId: string): void {
    if (!this.local) {
      if (!this.hasRoom(tenantId)) return;
      // Looked at again after the claim under way, if the tenant still has room then.
      if (this.loop.busy) {
        this.enqueuedDuringFill.add(tenantId);
        return;
      }
    }
    this.pump();
  }

  private hasRoom(tenantId: string): boolean {
    return (this.tenants.get(tenantId)?.inFlight ?? 0) < this.options.maxInFlight;
  }

  /** A pump, or an enqueue for a tenant with room, arrived during the fill: look again. */
  private wanted(): boolean {
    return this.loop.lookWanted || [...this.enqueuedDuringFill].some((tenantId) => this.hasRoom(tenantId));
  }

  pump(): void {
    this.drained = false;
    if (!this.loop.started) this.notify();
    else this.loop.wake();
  }

  /** After a fill: a pump that arrived after its last look must not be lost; look again. */
  private afterFill(): void {
    const landed = [...this.landedDuringFill];
    this.landedDuringFill.clear();
    if (!this.loop.started) this.notify();
    else if (this.wanted()) this.loop.lookAgain();
    else if (landed.length > 0) this.afterLanding(landed);
    else this.notify();
  }

  /** One look of the claim loop: claims for the free slots, tenant by tenant, and launches. */
  private async fill(): Promise<void> {
    const { concurrency, maxInFlight, leaseMs } = this.options;
    this.drained = false;
    do {
      this.enqueuedDuringFill.clear();
      try {
        await this.probePaused();
        const free = concurrency * maxInFlight - this.flights.size;
        if (free <= 0) break;
        const monotonicNow = this.options.monotonic();
        const skipTenants = [...this.tenants.values()]
          .filter((tenant) => !tenant.sendsAt(monotonicNow))
          .map((tenant) => tenant.tenantId);
        const sending = [...this.tenants.values()].filter((tenant) => tenant.inFlight > 0);
        // The cap is per outbox: what this one sends, not what every process sends.
        const inFlight = Object.fromEntries(sending.map((tenant) => [tenant.tenantId, tenant.inFlight]));
        const request = { limit: free, maxInFlight, inFlight, leaseMs, skipTenants };
        const newTenants = Math.max(0, concurrency - sending.length);
        // At most `concurrency` tenants send at once: when that many are sending, only they go on.
        const onlyTenants = newTenants > 0 ? undefined : sending.map((tenant) => tenant.tenantId);
        const claimed = this.local
          ? await this.local.claim(request, newTenants)
          : await this.claimShared({ ...request, onlyTenants });
        for (const event of claimed) this.launch(event);
        if (claimed.length === free) this.loop.lookAgain();
        else if (!this.wanted()) this.drained = true;
      } catch (err) {
        // A shared store that cannot be reached: the loop tries again after the poll interval.
        this.drained = true;
        throw err;
      }
      // The loop's own `lookAgain` is looked at by the loop; an enqueue with room, here.
    } while (!this.loop.lookWanted && this.wanted() && this.loop.started);
  }

  /** A shared store's claim, carrying the outcomes that landed since the last write. */
  private claimShared(request: ClaimRequest): Promise<StoredEvent[]> {
    const { source } = this;
    return source.recordAndClaim
      ? this.loop.claim((outcomes) => source.recordAndClaim!(outcomes, request))
      : source.claim(request);
  }

  /** One event of each paused or offline tenant whose probe is due (`Tenant.probesAt`). */
  private async probePaused(): Promise<void> {
    const now = this.options.monotonic();
    for (const tenant of this.tenants.values()) {
      if (!tenant.probesAt(now)) continue;
      const [probe] = await this.source.claim({
        limit: 1,
        maxInFlight: 1,
        leaseMs: this.options.leaseMs,
        onlyTenants: [tenant.tenantId],
        skipTenants: [],
      });
      tenant.probeAt = now + this.options.probeIntervalMs;
      if (probe) this.launch(probe);
    }
  }

  /** When to look again once a fill found nothing more (the loop wakes earlier when told). */
  private nextLookIn(reachable: boolean): number {
    const { options, local } = this;
    const now = options.monotonic();
    const tenants = [...this.tenants.values()];
    // A paused tenant is probed at its time; a held one (Retry-After) looked at when it ends.
    const waits = tenants.map((t) =>
      t.state === 'paused'
        ? Math.max(0, t.probeAt - now)
        : t.holdUntil > now
          ? t.holdUntil - now
          : Number.POSITIVE_INFINITY,
    );
    const skip = new Set(tenants.filter((t) => !t.sendsAt(now) && !t.probing).map((t) => t.tenantId));
    // A shared store: other processes add events and finish leases, so look again now and then.
    const due = local && reachable ? local.nextDueIn(skip, this.flights.size === 0) : options.pollIntervalMs;
    return Math.min(...waits, due ?? Number.POSITIVE_INFINITY);
  }

  private notify(): void {
    if (this.waiters.length === 0) return;
    const { loop } = this;
    if (loop.runs.size > 0 || (loop.started && (!this.drained || loop.busy))) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private launch(event: StoredEvent): void {
    const tenant = this.tenant(event.tenantId);
    tenant.inFlight += 1;
    this.flights.set(event.eventId, tenant);
    // A flight never rejects: `attempt` records every failure as the event's outcome.
    void this.loop.track(event.eventId, this.attempt(tenant, event, this.aborter.signal)).then(() => {
      this.land(event.eventId);
      this.notify();
    });
  }

  /** The event's slot is free: once recorded (a local store), or once queued (a shared one). */
  private land(eventId: string): void {
    const tenant = this.flights.get(eventId);
    if (!tenant) return;
    this.flights.delete(eventId);
    tenant.inFlight -= 1;
    if (this.loop.busy && !this.local) this.landedDuringFill.add(tenant);
    else this.afterLanding([tenant]);
  }

  /** Claims again at once, or (a shared store's tenants near their cap) once more answers are in. */
  private afterLanding(tenants: readonly Tenant[]): void {
    const { options, local } = this;
    const batch = Math.ceil(options.maxInFlight / CLAIM_BATCH_FRACTION);
    const roomy = tenants.some((tenant) => options.maxInFlight - tenant.inFlight >= batch);
    if (local || !this.loop.started || this.flights.size === 0 || roomy) {
      this.pump();
      return;
    }
    // At its cap (the claim that just ended counted these answers already): its next answer decides.
    if (tenants.every((tenant) => tenant.inFlight >= options.maxInFlight)) return;
    this.loop.lookSoon(CLAIM_BATCH_WAIT_MS);
  }

  private async attempt(tenant: Tenant, claimed: StoredEvent, signal: AbortSignal): Promise<void> {
    const { options } = this;
    let event = claimed;
    const startedAt = options.now();
    if (event.firstAttemptAt !== null && startedAt - event.firstAttemptAt > options.expireAfterMs) {
      return this.conclude(tenant, event, { kind: 'expire' }, 0);
    }
    let sender: OutboxSender;
    let held: boolean;
    try {
      // Recorded before the first attempt goes out: after a crash, the age of the oldest attempt
      // the service may have seen must be known, or the 24-hour dedup window could be overrun.
      if (event.firstAttemptAt === null) {
        await this.source.update(event.eventId, { firstAttemptAt: startedAt });
        event = { ...event, firstAttemptAt: startedAt };
      }
      sender = await this.senderOf(tenant);
      // Last, right before the send: this process may have stood still past its lease meanwhile.
      held = await this.loop.confirm(event.eventId);
    } catch (err) {
      const failure = { code: 'OUTBOX_NOT_SENT', message: err instanceof Error ? err.message : String(err) };
      return this.conclude(tenant, event, { kind: 'retry', failure, answered: false }, 0);
    }
    if (!held) return this.claimLost(event);
    // `close()` gave up on this flight while its first attempt was being recorded: send nothing.
    if (signal.aborted) return this.conclude(tenant, event, { kind: 'aborted' }, 0);
    let sent: [Verdict, number];
    try {
      // The client then stops its own retries before the 23-hour mark of the first attempt.
      const { status, correlationId, attempts } = await sender.sendEnvelope(event.envelope, {
        signal,
        firstAttemptAt: event.firstAttemptAt!,
        // The outbox pauses or stops the whole tenant on these; one attempt per probe is enough.
        // An offline tenant's probe is one request: the window, not the client's backoff, times it.
        noRetryCodes: tenant.probing ? PROBE_NO_RETRY_CODES : TENANT_WIDE_CODES,
        trace: { link: event.traceparent, tenantId: event.tenantId },
      });
      sent = [{ kind: 'delivered', status, correlationId, alreadyCredited: false }, attempts];
    } catch (err) {
      sent = [classify(err, signal.aborted), attemptsOf(err)];
    }
    await this.conclude(tenant, event, ...sent);
  }

  /** Records what the attempt decided; the event's hook and count only once its outcome is recorded. */
  private async conclude(
    tenant: Tenant,
    event: StoredEvent,
    verdict: Verdict | { readonly kind: 'expire' },
    attempts: number,
  ): Promise<void> {
    const { eventId } = event;
    const decision = decide(event, verdict, attempts, {
      tenantState: tenant.state,
      failuresInRow: this.failures.get(eventId) ?? 0,
      options: this.options,
    });
    await this.stepTenant(tenant, decision.tenant);
    // The link's return, and the service's waits kept across restarts (queued: close() syncs it).
    void followService(this.local, this.options, tenant, verdict, decision.tenant);
    const recorded = await this.record(decision.outcome);
    if (!recorded || decision.failuresInRow === 0) this.failures.delete(eventId);
    else if (decision.failuresInRow !== undefined) this.failures.set(eventId, decision.failuresInRow);
    if (!recorded) {
      const why = 'the claim was taken over after its lease ran out, or the store could not be reached';
      return this.report(event, 'outcome_not_recorded', `Outcome not recorded, no hook called: ${why}`);
    }
    if (decision.outcome.kind === 'delivered') this.delivered += 1;
    const { hook } = decision;
    if (hook) callHook(this.options.hooks[hook.name] as (info: EventHook['info']) => unknown, hook.info);
  }

  /** Another process took the event over after this one's lease ran out: free the slot, write nothing. */
  private async claimLost(event: StoredEvent): Promise<void> {
    this.failures.delete(event.eventId);
    await this.record({ kind: 'release', eventId: event.eventId });
    const message = 'Not sent: another process took the event over after this one’s lease ran out';
    this.report(event, 'claim_lost', message);
  }

  /** A log line about an event this process let go without a hook (the hooks say the rest). */
  private report(event: StoredEvent, what: string, message: string): void {
    writeLog(this.options.telemetry.logger, 'warn', `loyalty.outbox.${what}`, message, {
      eventId: event.eventId,
      eventType: event.envelope.eventType,
      tenantId: event.tenantId,
    });
  }

  private async stepTenant(tenant: Tenant, step: Decision['tenant']): Promise<void> {
    const { options } = this;
    if (step.kind === 'resume' && tenant.state === 'paused') resume(tenant, options);
    else if (step.kind === 'pause' && tenant.state !== 'stopped') {
      if (tenant.state === 'active') {
        tenant.setState('paused', step.code, options.now());
        callHook(options.hooks.onTenantPaused, { tenantId: tenant.tenantId, code: step.code });
      }
      tenant.probeAt = options.monotonic() + Math.max(options.probeIntervalMs, step.waitMs ?? 0);
    } else if (step.kind === 'stop' && tenant.state !== 'stopped') {
      // Not fatal when the store cannot be reached: this process stops the tenant all the same.
      await stopTenant(this.source, options, tenant, step.code).catch(() => undefined);
    }
  }

  /**
   * Whether the outcome was recorded. The local queue applies it at once (a failed journal write
   * only repeats an attempt the service dedups); a shared store only while the claim is still ours.
   */
  private async record(outcome: ClaimOutcome): Promise<boolean> {
    if (this.local) {
      const written = this.source.record([outcome]);
      this.pump();
      await written.catch(() => undefined);
      return true;
    }
    // Its slot is free now: the claim that brings (if one is coming) carries the outcome.
    this.land(outcome.eventId);
    return this.loop.record(outcome);
  }

  private senderOf(tenant: Tenant): Promise<OutboxSender> {
    if (tenant.sender) return tenant.sender;
    const lookup = Promise.resolve(this.options.senderFor(tenant.tenantId));
    // A failed lookup is not cached: the next attempt asks again.
    lookup.catch(() => {
      if (tenant.sender === lookup) tenant.sender = undefined;
    });
    tenant.sender = lookup;
    return lookup;
  }
}
