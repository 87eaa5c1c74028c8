interface Entry<T> {
  readonly item: T;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

const ignore = () => undefined;

/** The longest a lingering group waits before it flushes again after failed flushes. */
const MAX_RETRY_WAIT_MS = 1_000;

/** How a lingering group commit waits (see `GroupCommit`). */
export interface Linger {
  /** How long a submission waits for another write to carry it before it is flushed itself. */
  readonly ms: number;
  /** Whether a write that will `take()` the queue is under way or scheduled: wait longer. */
  readonly carrierComing: () => boolean;
}

/**
 * Group commit: while one flush is under way, new submissions queue up, and the next flush
 * takes them all at once. Under load, many writers share one write and one fsync; alone, a
 * writer waits for no timer. Each submission settles with the write that carried it.
 *
 * With a `linger`, submissions first wait for another write to carry them (`take()`: a shared
 * store's claim records the outcomes that landed before it, in the same statement), and are
 * flushed on their own only when none comes within `linger.ms`. A flush of their own that fails
 * rejects their submissions, as without a linger, and queues the items again, to wait twice as
 * long (up to a second) before the next try; inside `idle()` it only rejects.
 */
export class GroupCommit<T> {
  private queue: Entry<T>[] = [];
  private running: Promise<void> | undefined;
  private lingering: ReturnType<typeof setTimeout> | undefined;
  /** Taken by a carrier and not settled yet: `idle()` waits for them too. */
  private readonly carried = new Set<Promise<void>>();
  /** Flushes of their own that failed in a row (lingering): each waits twice as long again. */
  private failures = 0;
  /**
   * Calls of `idle()` under way (a count: two `flush()` at once must not let the first to end
   * turn requeueing back on under the second): a failed flush then rejects its submissions
   * without queueing the items again.
   */
  private settling = 0;

  /**
   * @param flush Makes a whole batch durable; throwing rejects every submission of the batch.
   * @param afterFlush Runs between batches, with nothing in flight (the file store compacts there).
   */
  constructor(
    private readonly flush: (batch: readonly T[]) => Promise<void>,
    private readonly afterFlush: () => Promise<void> = async () => {},
    private readonly linger?: Linger,
  ) {}

  submit(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Everything queued and not being flushed, for a write that carries it. `settle()` once that
   * write committed; `settle(err)` when it failed: the submissions are queued again.
   */
  take(): { readonly items: readonly T[]; settle(err?: unknown): void } {
    const entries = this.queue;
    this.queue = [];
    if (entries.length === 0) return { items: [], settle: () => undefined };
    let done!: () => void;
    const settled = new Promise<void>((resolve) => {
      done = resolve;
    });
    this.carried.add(settled);
    return {
      items: entries.map((entry) => entry.item),
      settle: (err?: unknown) => {
        this.carried.delete(settled);
        done();
        if (err === undefined) {
          this.failures = 0;
          for (const entry of entries) entry.resolve();
          return;
        }
        this.queue = [...entries, ...this.queue];
        this.schedule();
      },
    };
  }

  /**
   * Flushes what waits for a carrier, and resolves once everything submitted so far has settled.
   * Here a failed flush does not queue its items again: `idle()` (the outbox's `flush()` and
   * `close()`) never waits on a database that stays down.
   */
  async idle(): Promise<void> {
    this.settling += 1;
    try {
      for (;;) {
        clearTimeout(this.lingering);
        this.lingering = undefined;
        this.startDrain();
        if (this.running) await this.running;
        else if (this.carried.size > 0) await Promise.all(this.carried);
        else return;
      }
    } finally {
      this.settling -= 1;
    }
  }

  /** What waits is written at once, or (lingering) once no carrier took it in time. */
  private schedule(): void {
    if (this.linger) this.waitForCarrier();
    else this.startDrain();
  }

  private waitForCarrier(): void {
    if (this.running || this.lingering || this.queue.length === 0) return;
    // After failed flushes of its own, longer: a carrier may take it meanwhile, and a database
    // that is down is not asked again every few milliseconds.
    const wait = Math.min(this.linger!.ms * 2 ** this.failures, MAX_RETRY_WAIT_MS);
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      if (this.linger!.carrierComing()) this.waitForCarrier();
      else this.startDrain();
    }, wait);
    // Outcomes waiting to be written again (the database down, say) must not keep a finished
    // program alive, as the scheduler's timers do not; `close()` writes what waits.
    if (this.failures > 0) this.lingering.unref?.();
  }

  /** A flush of what is queued, unless one is under way (it takes the rest after it) or none is. */
  private startDrain(): void {
    if (this.running || this.queue.length === 0) return;
    this.running = this.drain();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.flush(batch.map((entry) => entry.item));
        this.failures = 0;
        for (const entry of batch) entry.resolve();
      } catch (err) {
        for (const entry of batch) entry.reject(err);
        if (this.linger && this.settling === 0) {
          // A shared store's outcomes: their submitters are told (and move on: nothing waits on
          // a store that may stay down), and the items are queued again, for the next claim to
          // carry or a later flush, rather than left for their lease to run out.
          this.failures += 1;
          this.queue = [
            ...batch.map(({ item }) => ({ item, resolve: ignore, reject: ignore })),
            ...this.queue,
          ];
        }
      }
      await this.afterFlush().catch(() => undefined);
      // Lingering: what arrived meanwhile waits for a carrier again.
      if (this.linger) break;
    }
    this.running = undefined;
    if (this.linger) this.waitForCarrier();
  }
}
