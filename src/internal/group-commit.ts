interface Entry<T, R> {
  readonly item: T;
  readonly resolve: (result: R) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Group commit: submissions queued while a write is under way go together in the next one (one
 * fsync for many writers; alone, no timer). Each settles with what its batch's write returned.
 */
export class GroupCommit<T, R = void> {
  private queue: Entry<T, R>[] = [];
  private running: Promise<void> | undefined;

  /**
   * @param write Makes a whole batch durable; throwing rejects every submission of the batch.
   * @param afterFlush Runs between batches, with nothing in flight (the file store compacts there).
   */
  constructor(
    private readonly write: (batch: readonly T[]) => Promise<R>,
    private readonly afterFlush: () => Promise<void> = async () => {},
  ) {}

  submit(item: T): Promise<R> {
    const settled = this.add(item);
    this.flush();
    return settled;
  }

  /** Queues an item without starting a write: `flush()`, or another write that `take`s it, carries it. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => this.queue.push({ item, resolve, reject }));
  }

  /** Writes what is queued (after the write under way, if any). */
  flush(): void {
    if (this.queue.length > 0) this.running ??= this.drain();
  }

  /** Hands everything queued to another write that carries it: `settle` or `fail` with its result. */
  take(): { readonly items: readonly T[]; settle(result: R): void; fail(err: unknown): void } {
    const batch = this.queue;
    this.queue = [];
    return {
      items: batch.map((entry) => entry.item),
      settle: (result) => {
        for (const entry of batch) entry.resolve(result);
      },
      fail: (err) => {
        for (const entry of batch) entry.reject(err);
      },
    };
  }

  /** Resolves once everything submitted so far has settled. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.take();
      try {
        batch.settle(await this.write(batch.items));
      } catch (err) {
        batch.fail(err);
      }
      await this.afterFlush().catch(() => undefined);
    }
    this.running = undefined;
  }
}
