import { observeInbox, traceStoredRun } from '../telemetry/receiver-telemetry.js';
import type { ClaimedDelivery, DeferredInboxStore } from './inbox.js';
import { startHeartbeat } from './lease-heartbeat.js';
import type { DeliveryParser } from './receiver-build.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { runStored } from './run-stored.js';

/** Handlers one process runs at once. */
const CONCURRENCY = 16;
/**
 * A claim is a statement and a commit: after a handler ends, the runner claims again only once
 * half its slots are free, so handlers that end one after another share a claim instead of
 * paying one each (as the outbox's drain does).
 */
const REFILL_AT = CONCURRENCY / 2;
/** How often an idle runner looks for due deliveries (retries, other processes' deliveries). */
const POLL_MS = 500;
/** How often handled deliveries past the retention are deleted, a batch at a time. */
const CLEANUP_MS = 60_000;
const CLEANUP_BATCH = 500;

/**
 * The worker side of a deferred receiver (`receiver.start()`): claims due deliveries from the
 * inbox, up to {@link CONCURRENCY} at a time (claiming again when half are free), runs each one's handler and records the outcome.
 * Any number of processes may run one over the same store: a claim holds a lease, renewed by
 * one heartbeat for all of this runner's claims while their handlers run, so a delivery runs
 * in one process at a time, and a process that died loses its claims when their lease ends.
 */
export class DeferredRunner {
  private readonly owner = `receiver:${globalThis.crypto.randomUUID()}`;
  private readonly running = new Map<string, Promise<void>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
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
  ) {}

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
        while (!this.closed && this.running.size < CONCURRENCY) {
          const room = CONCURRENCY - this.running.size;
          const claims = await this.inbox.claimDue(this.owner, room);
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
      if (!this.closed) {
        this.timer = setTimeout(() => this.wake(), POLL_MS);
        (this.timer as { unref?: () => void }).unref?.();
      }
    }
  }

  private launch(claim: ClaimedDelivery, parse: DeliveryParser): void {
    const { config, inbox } = this;
    const stored = () => runStored(config, inbox, parse, claim);
    const run = (config.telemetry.enabled() ? traceStoredRun(config.telemetry, claim, stored) : stored())
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.running.delete(claim.eventId);
        if (this.running.size <= REFILL_AT) this.wake();
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
