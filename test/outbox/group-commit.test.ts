import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../src/outbox/group-commit.js';

/** A flush that records its batches and waits until the test lets it finish. */
function recordingFlush() {
  const batches: number[][] = [];
  let release: (() => void) | undefined;
  let fail: Error | undefined;
  const flush = async (batch: readonly number[]) => {
    batches.push([...batch]);
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    if (fail) throw fail;
  };
  return {
    batches,
    flush,
    finish: () => release?.(),
    failNext: (err: Error) => {
      fail = err;
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('GroupCommit', () => {
  it('flushes at once, and batches what arrives while a flush is under way', async () => {
    const writer = recordingFlush();
    const commit = new GroupCommit(writer.flush);
    const first = commit.submit(1);
    const later = [commit.submit(2), commit.submit(3)];
    expect(writer.batches).toEqual([[1]]);
    writer.finish();
    await first;
    await vi.waitFor(() => expect(writer.batches).toEqual([[1], [2, 3]]));
    writer.finish();
    await Promise.all(later);
  });

  it('writes at once what a failed carrier took back, without a linger', async () => {
    const writer = recordingFlush();
    const commit = new GroupCommit(writer.flush);
    const first = commit.submit(1);
    const submitted = commit.submit(2);
    const carried = commit.take();
    expect(carried.items).toEqual([2]);
    writer.finish();
    await first;
    // The flush of item 1 is over and nothing else is queued: the carrier's failure alone
    // must start the next write.
    await new Promise((resolve) => setTimeout(resolve, 10));
    carried.settle(new Error('connection lost'));
    await vi.waitFor(() => expect(writer.batches).toEqual([[1], [2]]));
    writer.finish();
    await submitted;
  });

  describe('with a linger', () => {
    it('lets a carrier take the queue, and settles each submission with the carrier', async () => {
      vi.useFakeTimers();
      const writer = recordingFlush();
      const commit = new GroupCommit(writer.flush, undefined, { ms: 10, carrierComing: () => false });
      let settled = 0;
      const submitted = [commit.submit(1), commit.submit(2)].map((p) => p.then(() => settled++));
      const carried = commit.take();
      expect(carried.items).toEqual([1, 2]);
      await vi.advanceTimersByTimeAsync(50);
      // Taken: never flushed on its own, and not settled before the carrier is.
      expect(writer.batches).toEqual([]);
      expect(settled).toBe(0);
      carried.settle();
      await Promise.all(submitted);
      expect(settled).toBe(2);
      expect(commit.take().items).toEqual([]);
    });

    it('queues again what a failed carrier took, and flushes it when no carrier comes', async () => {
      vi.useFakeTimers();
      const writer = recordingFlush();
      const commit = new GroupCommit(writer.flush, undefined, { ms: 10, carrierComing: () => false });
      const submitted = commit.submit(1);
      commit.take().settle(new Error('connection lost'));
      expect(writer.batches).toEqual([]);
      await vi.advanceTimersByTimeAsync(10);
      expect(writer.batches).toEqual([[1]]);
      writer.finish();
      await submitted;
    });

    it('waits while a carrier is coming, then flushes on its own', async () => {
      vi.useFakeTimers();
      const writer = recordingFlush();
      let coming = true;
      const commit = new GroupCommit(writer.flush, undefined, { ms: 10, carrierComing: () => coming });
      const submitted = commit.submit(1);
      await vi.advanceTimersByTimeAsync(35);
      expect(writer.batches).toEqual([]);
      coming = false;
      await vi.advanceTimersByTimeAsync(10);
      expect(writer.batches).toEqual([[1]]);
      writer.finish();
      await submitted;
    });

    it('rejects a failed flush of its own, and writes its items again after a longer wait each time', async () => {
      vi.useFakeTimers();
      const writer = recordingFlush();
      const commit = new GroupCommit(writer.flush, undefined, { ms: 10, carrierComing: () => false });
      const outcome = commit.submit(1).catch((err: Error) => err.message);
      writer.failNext(new Error('connection lost'));
      await vi.advanceTimersByTimeAsync(10);
      writer.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(writer.batches).toEqual([[1]]);
      // The submitter is told at once (nothing waits on a store that may stay down)...
      expect(await outcome).toBe('connection lost');
      // ...and the item is written again: twice the linger after one failure, not yet at 19 ms.
      await vi.advanceTimersByTimeAsync(19);
      expect(writer.batches).toEqual([[1]]);
      await vi.advanceTimersByTimeAsync(1);
      expect(writer.batches).toEqual([[1], [1]]);
      writer.finish(); // fails again
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(40);
      // Four times the linger after a second failure; then it is written, and nothing more.
      expect(writer.batches).toEqual([[1], [1], [1]]);
      writer.failNext(undefined as never);
      writer.finish();
      await vi.advanceTimersByTimeAsync(2_000);
      expect(writer.batches).toEqual([[1], [1], [1]]);
      expect(commit.take().items).toEqual([]);
    });

    it('rejects the submissions of a failed flush inside idle(), so closing never waits on a dead store', async () => {
      const writer = recordingFlush();
      const commit = new GroupCommit(writer.flush, undefined, { ms: 60_000, carrierComing: () => false });
      const outcome = commit.submit(1).catch((err: Error) => err.message);
      writer.failNext(new Error('disk gone'));
      const idle = commit.idle();
      await vi.waitFor(() => expect(writer.batches).toEqual([[1]]));
      writer.finish();
      await idle;
      expect(await outcome).toBe('disk gone');
    });

    it('idle() flushes what waits at once, and waits for what a carrier holds', async () => {
      const writer = recordingFlush();
      const commit = new GroupCommit(writer.flush, undefined, {
        ms: 60_000,
        carrierComing: () => true,
      });
      const carried = commit.take();
      const held = commit.submit(1);
      const taken = commit.take();
      const waiting = commit.submit(2);
      let idle = false;
      const done = commit.idle().then(() => {
        idle = true;
      });
      await vi.waitFor(() => expect(writer.batches).toEqual([[2]]));
      writer.finish();
      await waiting;
      await new Promise((resolve) => setTimeout(resolve, 10));
      // Item 1 is with its carrier: idle() waits for it.
      expect(idle).toBe(false);
      expect(carried.items).toEqual([]);
      taken.settle();
      await held;
      await done;
      expect(idle).toBe(true);
    });
  });
});
