import { GroupCommit } from './group-commit.js';
import { startHeartbeat } from './lease-heartbeat.js';
import { backgroundTimeout } from './timers.js';

/** What a {@link ClaimLoop} runs: one feature's claims, store and policy. */
export interface ClaimLoopParts<Outcome> {
  /**
   * One look: claims what there is room for ({@link ClaimLoop.claim} when claims carry outcomes)
   * and starts each run ({@link ClaimLoop.track}). Throwing: the store was unreachable; poll again.
   */
  look(): Promise<void>;
  /** The feature claims through {@link ClaimLoop.claim}: queued outcomes wait for a look coming. */
  readonly carries: boolean;
  /** The id of what an outcome is about (the claim it ends). */
  idOf(outcome: Outcome): string;
  /** Writes outcomes on their own; resolves with the ids whose claim was still held (recorded). */
  write(outcomes: readonly Outcome[]): Promise<readonly string[]>;
  /** Renews leases, resolving with the ids still held when it can tell; absent: no lease (local). */
  renew?: ((ids: readonly string[]) => unknown) | undefined;
  /** How long a claim holds (the heartbeat renews every third of it). */
  readonly leaseMs: number;
  /** Milliseconds until the next look once a look ends (`Infinity`: only when woken). */
  nextLookIn(reachable: boolean): number;
  /** After each look, before the loop decides whether to look again at once. */
  afterLook?: (() => void) | undefined;
}

/**
 * The claim loop of the outbox's drain and of the deferred receiver's runner: claims and starts
 * runs, renews their leases (one heartbeat for all), polls when idle, looks at once when woken.
 * A recorded outcome rides on the next claim when one is under way or due soon ({@link lookSoon});
 * otherwise it is written at once (`write`, group-committed with whatever else is queued).
 */
export class ClaimLoop<Outcome> {
  /** Each run until its outcome is recorded, by id: their leases are renewed. */
  readonly runs = new Map<string, Promise<void>>();
  private readonly outcomes: GroupCommit<Outcome, readonly string[]>;
  /** Claims to confirm: those asked about while a renewal is under way share the next one. */
  private readonly confirmations: GroupCommit<string, unknown>;
  private running = false;
  /** The look under way: `stop` waits for it (it may still claim) and for what it starts. */
  private looking: Promise<void> | undefined;
  private again = false;
  private confirmTimer: ReturnType<typeof setTimeout> | undefined;
  private pollTimer: ReturnType<typeof setTimeout> | undefined;
  private soonTimer: ReturnType<typeof setTimeout> | undefined;
  private stopHeartbeat: (() => void) | undefined;

  constructor(private readonly parts: ClaimLoopParts<Outcome>) {
    this.outcomes = new GroupCommit((batch) => parts.write(batch));
    this.confirmations = new GroupCommit(async (ids) => parts.renew?.(ids));
  }

  get busy(): boolean {
    return this.looking !== undefined;
  }
  /** Whether the loop claims (between `start` and `stop`). */
  get started(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const { renew } = this.parts;
    if (renew && !this.stopHeartbeat) {
      this.stopHeartbeat = startHeartbeat(this.parts.leaseMs, () =>
        this.runs.size ? renew([...this.runs.keys()]) : undefined,
      );
    }
    this.wake();
  }

  /**
   * Stops looking and writes the queued outcomes; returns the runs under way (still renewed), a look
   * under way included: its claim may still be on the wire, and a closed process must hold no claim
   * (another process would wait a whole lease for it).
   */
  stop(): Promise<void>[] {
    this.running = false;
    clearTimeout(this.pollTimer);
    this.cancelSoon();
    this.outcomes.flush();
    const runs = [...this.runs.values()];
    if (this.looking)
      runs.push(this.looking.then(() => Promise.all(this.runs.values())).then(() => undefined));
    else if (this.runs.size === 0) this.endHeartbeat();
    return runs;
  }

  /** Looks now, or again right after the look under way. */
  wake(): void {
    if (!this.running) return;
    this.cancelSoon();
    if (this.looking) {
      this.again = true;
      return;
    }
    // Started after the caller's synchronous work: an outcome it records right after the wake (a
    // run that ended frees its slot, then records) rides on this look's claim, not a write of its own.
    this.looking = Promise.resolve()
      .then(() => this.lookUntilDone())
      .finally(() => {
        this.looking = undefined;
        this.parts.afterLook?.();
        if (this.again && this.running) this.wake();
        this.writeUnlessClaimComing();
        if (!this.running && this.runs.size === 0) this.endHeartbeat();
      });
  }

  /** Looks within `ms` at the latest, so outcomes queued meanwhile ride on that look's claim. */
  lookSoon(ms: number): void {
    if (!this.running || this.soonTimer !== undefined) return;
    this.soonTimer = backgroundTimeout(() => {
      this.soonTimer = undefined;
      this.wake();
    }, ms);
  }

  /** Another look at once after this one (the feature filled every free slot). */
  lookAgain(): void {
    this.again = true;
  }
  /** Whether another look was asked for during this one. */
  get lookWanted(): boolean {
    return this.again;
  }

  /** A claim that records the queued outcomes in the same write (a rejection: none recorded). */
  async claim<C>(
    claimWith: (outcomes: readonly Outcome[]) => Promise<{ recorded: readonly string[]; claimed: C[] }>,
  ): Promise<C[]> {
    const carried = this.outcomes.take();
    try {
      const { recorded, claimed } = await claimWith(carried.items);
      carried.settle(recorded);
      return claimed;
    } catch (err) {
      carried.fail(err);
      throw err;
    }
  }

  /** Queues an outcome; whether it was recorded (false: the claim was lost, or the store failed). */
  async record(outcome: Outcome): Promise<boolean> {
    const written = this.outcomes.add(outcome);
    this.writeUnlessClaimComing();
    const recorded = await written.catch((): readonly string[] => []);
    return recorded.includes(this.parts.idOf(outcome));
  }

  /**
   * Whether the claim of `id` is still this loop's, by a renewal shared with those asked in the same
   * turn or while one is under way. True when the store cannot tell; rejects when it is unreachable.
   */
  async confirm(id: string): Promise<boolean> {
    if (!this.parts.renew) return true;
    const asked = this.confirmations.add(id);
    // The runs one claim started all ask within one turn: one renewal for them, not the first alone.
    this.confirmTimer ??= setTimeout(() => {
      this.confirmTimer = undefined;
      this.confirmations.flush();
    }, 0);
    const held = await asked;
    return !Array.isArray(held) || held.includes(id);
  }

  /** Tracks a run until it settles (its lease renewed meanwhile). */
  track(id: string, run: Promise<unknown>): Promise<void> {
    const tracked = run.then(
      () => undefined,
      () => undefined,
    );
    this.runs.set(id, tracked);
    void tracked.then(() => {
      if (this.runs.get(id) === tracked) this.runs.delete(id);
      if (!this.running && this.runs.size === 0) this.endHeartbeat();
    });
    return tracked;
  }

  private async lookUntilDone(): Promise<void> {
    clearTimeout(this.pollTimer);
    if (!this.running) return;
    let reachable = true;
    do {
      this.again = false;
      try {
        await this.parts.look();
      } catch {
        reachable = false;
        break;
      }
    } while (this.again && this.running);
    if (!this.running) return;
    const wait = this.parts.nextLookIn(reachable);
    if (wait !== Number.POSITIVE_INFINITY) this.pollTimer = backgroundTimeout(() => this.wake(), wait);
  }

  /** Outcomes wait for a claim only while one is under way or planned. */
  private writeUnlessClaimComing(): void {
    const claimComing = this.parts.carries && this.running && (this.busy || this.soonTimer !== undefined);
    if (!claimComing) this.outcomes.flush();
  }

  private cancelSoon(): void {
    clearTimeout(this.soonTimer);
    this.soonTimer = undefined;
  }
  private endHeartbeat(): void {
    this.stopHeartbeat?.();
    this.stopHeartbeat = undefined;
  }
}
