import { callHook } from '../contract/call-hook.js';
import { ClaimLoop } from '../internal/claim-loop.js';
import { observeInbox, traceStoredRun } from '../telemetry/receiver-telemetry.js';
import type { ClaimedDelivery, DeferredInboxStore } from './inbox.js';
import type { DeliveryParser } from './receiver-build.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { runStored, type StoredOutcome } from './run-stored.js';
import { WebhookError } from './webhook-error.js';

/** The longest a handled mark waits for a claim to carry it before the runner looks anyway. */
const MARK_WAIT_MS = 50;
/** How often an idle runner looks for due deliveries (retries, other processes' deliveries). */
const POLL_MS = 500;
/** How often handled deliveries past the retention are deleted, a batch at a time. */
const CLEANUP_MS = 60_000;
const CLEANUP_BATCH = 500;

/**
 * The worker side of a deferred receiver (`receiver.start()`): claims due deliveries, up to
 * `concurrency` at a time, runs their handlers and records the outcomes, on the claim loop the
 * outbox's drain uses too (internal/claim-loop.ts). Claims hold a lease renewed by one heartbeat,
 * so any number of processes may share a store. A claim is a commit: the runner claims again once
 * half its slots are free, and where the store can, that claim also carries the handled marks.
 */
export class DeferredRunner {
  private readonly owner = `receiver:${globalThis.crypto.randomUUID()}`;
  private readonly loop: ClaimLoop<ClaimedDelivery>;
  /** Runs whose handler has not ended: the slots taken. */
  private readonly busy = new Set<string>();
  private stopGauge: (() => void) | undefined;
  private parse: DeliveryParser | undefined;
  private closed = false;
  private lastCleanup = 0;
  /** Whether the last claim found fewer due deliveries than it had room for: the inbox ran dry. */
  private dry = false;
  /** Whether the last claim failed: an outage is told to `onError` once, not at every poll. */
  private claimsFailing = false;

  constructor(
    private readonly config: NormalizedReceiverOptions,
    private readonly inbox: DeferredInboxStore<unknown>,
    private readonly parser: () => Promise<DeliveryParser>,
  ) {
    this.loop = new ClaimLoop<ClaimedDelivery>({
      carries: inbox.markHandledAndClaim !== undefined,
      idOf: (claim) => claim.eventId,
      write: (batch) => this.markHandled(batch),
      renew: (ids) => inbox.extendLease(this.owner, ids),
      leaseMs: inbox.leaseMs,
      look: () => this.look(),
      nextLookIn: () => POLL_MS,
    });
  }

  /** Starts claiming; resolves once the parser is loaded (so a start-up failure shows here). */
  async start(): Promise<void> {
    if (this.loop.started || this.closed) return;
    this.parse = await this.parser();
    if (this.config.telemetry.enabled())
      this.stopGauge = observeInbox(this.config.telemetry, () => this.inbox.stats());
    this.loop.start();
  }

  /** Looks for due deliveries now (a delivery was just stored or replayed). */
  wake(): void {
    this.loop.wake();
  }

  /** Stops claiming and waits for the handlers under way; their outcomes are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    let runs = this.loop.stop();
    while (runs.length) {
      await Promise.allSettled(runs);
      runs = [...this.loop.runs.values()];
    }
    this.stopGauge?.();
  }

  /** Claims for every free slot (the claim carrying the handled marks queued), then cleans up. */
  private async look(): Promise<void> {
    const { concurrency } = this.config;
    while (this.loop.started && this.busy.size < concurrency) {
      const room = concurrency - this.busy.size;
      const claims = await this.claim(room);
      this.dry = claims.length < room;
      for (const claim of claims) this.launch(claim);
      if (this.dry) break;
    }
    this.cleanup();
  }

  private async claim(room: number): Promise<ClaimedDelivery[]> {
    const { inbox, owner } = this;
    try {
      const claims = inbox.markHandledAndClaim
        ? await this.loop.claim(async (handled) => {
            const { marked, claims } = await inbox.markHandledAndClaim!(handled, owner, room);
            return { recorded: marked, claimed: claims };
          })
        : await inbox.claimDue(owner, room);
      this.claimsFailing = false;
      return claims;
    } catch (err) {
      this.claimFailed(err);
      throw err;
    }
  }

  /**
   * Tells `onError` of the first failed claim of an outage (the loop polls on), and of every one
   * that reports deliveries the store lost (`DELIVERY_LOST`), which no later claim would mention.
   */
  private claimFailed(cause: unknown): void {
    const lost = (cause as { code?: unknown } | null)?.code === 'DELIVERY_LOST';
    if (this.claimsFailing && !lost) return;
    this.claimsFailing = true;
    const text = lost
      ? `The inbox lost stored deliveries: ${(cause as Error).message}`
      : 'The inbox could not be reached to claim due deliveries; the runner keeps polling';
    const scope = { tenantId: '', correlationId: '', receivedAt: new Date(), status: 503 };
    callHook(this.config.onError, new WebhookError('INBOX_UNAVAILABLE', text, { cause }), scope);
  }

  private launch(claim: ClaimedDelivery): void {
    const { config } = this;
    const run = () => this.run(claim);
    this.busy.add(claim.eventId);
    const traced = config.telemetry.enabled() ? traceStoredRun(config.telemetry, claim, run) : run();
    void this.loop.track(claim.eventId, traced).then(() => this.free(claim.eventId));
  }

  /**
   * The handler's run, then its `handled` mark: written with the handler's writes by a
   * transactional store, else recorded by the claim loop once the slot is free.
   */
  private async run(claim: ClaimedDelivery): Promise<StoredOutcome> {
    const outcome = await runStored(this.config, this.inbox, this.parse!, claim);
    if (outcome !== 'succeeded') return outcome;
    this.free(claim.eventId);
    return (await this.loop.record(claim)) ? 'handled' : 'lost';
  }

  /**
   * Handled marks that no claim is coming to carry, written now: in one statement where the store
   * marks and claims in one (claiming none), else one write each.
   */
  private async markHandled(batch: readonly ClaimedDelivery[]): Promise<readonly string[]> {
    const { inbox } = this;
    if (inbox.markHandledAndClaim) return (await inbox.markHandledAndClaim(batch, this.owner, 0)).marked;
    const marked = await Promise.all(batch.map((claim) => inbox.markHandled(claim)));
    return batch.filter((_, k) => marked[k]).map((claim) => claim.eventId);
  }

  /**
   * A handler ended: claim again once half the slots are free; its mark waits for that claim.
   * Where claims carry marks and the inbox ran dry, the marks of handlers ending one by one wait
   * for one claim within `MARK_WAIT_MS` instead of a claim each (which would find nothing).
   */
  private free(eventId: string): void {
    if (!this.busy.delete(eventId)) return;
    const half = this.busy.size <= this.config.concurrency / 2;
    if (this.inbox.markHandledAndClaim && (this.dry || !half)) this.loop.lookSoon(MARK_WAIT_MS);
    else if (half) this.loop.wake();
  }

  /** Retention: handled deliveries older than the store keeps them, in the background. */
  private cleanup(): void {
    const now = Date.now();
    if (now - this.lastCleanup < CLEANUP_MS) return;
    this.lastCleanup = now;
    const batch = async () => {
      while (!this.closed && (await this.inbox.cleanup(CLEANUP_BATCH)) >= CLEANUP_BATCH);
    };
    batch().catch(() => undefined);
  }
}
