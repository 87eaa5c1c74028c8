import { GroupCommit } from '../internal/group-commit.js';
import { observeInbox, traceStoredRun } from '../telemetry/receiver-telemetry.js';
import type { ClaimedDelivery, DeferredInboxStore } from './inbox.js';
import { startHeartbeat } from '../internal/lease-heartbeat.js';
import type { DeliveryParser } from './receiver-build.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { runStored } from './run-stored.js';

/** Handlers one process runs at once. */
const CONCURRENCY = 16;
/**
 * A claim is a statement and a commit: after a handler ends, the runner claims again only once
 * half its slots are free, so handlers that end one after another share a claim instead of
 * paying one each (as the outbox's drain does). Where the store can (`markHandledAndClaim`),
 * that claim also marks them handled.
 */
const REFILL_AT = CONCURRENCY / 2;
/**
 * The longest a handled mark waits for a claim to carry it (slow handlers may keep the slots
 * taken): then it is written on its own, so `stats()` and the other processes see it soon.
 */
const MARK_WAIT_MS = 50;
/** How often an idle runner looks for due deliveries (retries, other processes' deliveries). */
const POLL_MS = 500;
/** How often handled deliveries past the retention are deleted, a batch at a time. */
const CLEANUP_MS = 60_000;
const CLEANUP_BATCH = 500;

/**
 * The worker side of a deferred receiver (`receiver.start()`): claims due deliveries from the
 * inbox, up to {@link CONCURRENCY} at a time (claiming again when half are free), runs each
 * one's handler and records the outcome. Any number of processes may run one over the same
 * store: a claim holds a lease, renewed by one heartbeat for all of this runner's claims until
 * their outcomes are recorded, so a delivery runs in one process at a time, and a process that
 * died loses its claims when their lease ends.
 */
export class DeferredRunner {
  private readonly owner = `receiver:${globalThis.crypto.randomUUID()}`;
  /** Every run until its outcome is recorded (`close()` waits for them; leases are renewed). */
  private readonly running = new Map<string, Promise<void>>();
  /** Runs whose handler has not ended: the slots taken. */
  private readonly busy = new Set<string>();
  /**
   * Deliveries whose handler succeeded, waiting for the claim their free slots bring, which marks
   * them handled in the same write (`markHandledAndClaim`); written on their own only when no
   * claim is coming (closing, or the store is unreachable).
   */
  private readonly marks: GroupCommit<ClaimedDelivery, readonly string[]>;
  /** The inbox as `runStored` sees it: `markHandled` queues for the next claim where it can. */
  private readonly runInbox: DeferredInboxStore<unknown>;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private markTimer: ReturnType<typeof setTimeout> | undefined;
  private stopHeartbeat: (() => void) | undefined;
  private stopGauge: (() => void) | undefined;
  private pumping = false;
  private again = false;
  private started = false;
  private closed = false;
  private lastCleanup = 0;

  constructor(
    private readonly config: NormalizedReceiverOptions,
    private readonly inbox: DeferredInboxStore<unknown>,
    private readonly parser: () => Promise<DeliveryParser>,
  ) {
    this.marks = new GroupCommit<ClaimedDelivery, readonly string[]>(async (batch) => {
      const marked = await Promise.all(batch.map((claim) => inbox.markHandled(claim)));
      return batch.filter((_, k) => marked[k]).map((claim) => claim.eventId);
    });
    this.runInbox = inbox.markHandledAndClaim
      ? { ...inbox, markHandled: (claim) => this.markHandled(claim) }
      : inbox;
  }

  /** Starts claiming; resolves once the parser is loaded (so a start-up failure shows here). */
  async start(): Promise<void> {
    if (this.started || this.closed) return;
    await this.parser();
    this.started = true;
    this.stopHeartbeat = startHeartbeat(this.inbox.leaseMs, () =>
      this.running.size ? this.inbox.extendLease(this.owner, [...this.running.keys()]) : undefined,
    );
    if (this.config.telemetry.enabled())
      this.stopGauge = observeInbox(this.config.telemetry, () => this.inbox.stats());
    this.wake();
  }

  /** Looks for due deliveries now (a delivery was just stored or replayed). */
  wake(): void {
    if (!this.started || this.closed) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    void this.pump();
  }

  /** Stops claiming and waits for the handlers under way; their outcomes are recorded. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.markTimer);
    this.marks.flush();
    while (this.running.size) await Promise.allSettled([...this.running.values()]);
    this.stopHeartbeat?.();
    this.stopGauge?.();
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    clearTimeout(this.timer);
    try {
      do {
        this.again = false;
        while (!this.closed && this.busy.size < CONCURRENCY) {
          const room = CONCURRENCY - this.busy.size;
          const claims = await this.claim(room);
          const parse = await this.parser();
          for (const claim of claims) this.launch(claim, parse);
          if (claims.length < room) break;
        }
      } while (this.again && !this.closed);
      this.cleanup();
    } catch {
      // The store is unreachable: the next poll tries again.
    } finally {
      this.pumping = false;
      this.writeMarksSoon();
      if (!this.closed) {
        this.timer = setTimeout(() => this.wake(), POLL_MS);
        (this.timer as { unref?: () => void }).unref?.();
      }
    }
  }

  /** A claim, carrying the marks of the handlers that succeeded since the last one. */
  private async claim(room: number): Promise<ClaimedDelivery[]> {
    const { inbox } = this;
    if (!inbox.markHandledAndClaim) return inbox.claimDue(this.owner, room);
    const carried = this.marks.take();
    try {
      const { marked, claims } = await inbox.markHandledAndClaim(carried.items, this.owner, room);
      carried.settle(marked);
      return claims;
    } catch (err) {
      carried.fail(err);
      throw err;
    }
  }

  /** `markHandled` through the next claim: the handler's slot is free at once. */
  private async markHandled(claim: ClaimedDelivery): Promise<boolean> {
    const marked = this.marks.add(claim);
    this.free(claim.eventId);
    if (!this.pumping) this.writeMarksSoon();
    return (await marked).includes(claim.eventId);
  }

  /** Marks no claim carries within {@link MARK_WAIT_MS} are written on their own (at once when closing). */
  private writeMarksSoon(): void {
    if (this.closed) this.marks.flush();
    if (this.closed || this.markTimer !== undefined) return;
    this.markTimer = setTimeout(() => {
      this.markTimer = undefined;
      // A pump under way carries them, or sets this timer again when it ends.
      if (!this.pumping) this.marks.flush();
    }, MARK_WAIT_MS);
    (this.markTimer as { unref?: () => void }).unref?.();
  }

  /** The handler ended: claim again once half the slots are free. */
  private free(eventId: string): void {
    if (!this.busy.delete(eventId)) return;
    if (this.busy.size <= REFILL_AT) this.wake();
  }

  private launch(claim: ClaimedDelivery, parse: DeliveryParser): void {
    const { config, runInbox } = this;
    const stored = () => runStored(config, runInbox, parse, claim);
    this.busy.add(claim.eventId);
    const run = (config.telemetry.enabled() ? traceStoredRun(config.telemetry, claim, stored) : stored())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.running.delete(claim.eventId);
        this.free(claim.eventId);
      });
    this.running.set(claim.eventId, run);
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
