import { describe, expect, it, vi } from 'vitest';
import { GroupCommit } from '../../src/internal/group-commit.js';

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
    const failure = fail;
    fail = undefined;
    if (failure) throw failure;
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

/** Submissions 2 and 3, queued during the first flush, go out together in the second. */
async function expectFlushedTogether(writer: ReturnType<typeof recordingFlush>, later: Promise<void>[]) {
  await vi.waitFor(() => expect(writer.batches).toEqual([[1], [2, 3]]));
  writer.finish();
  await Promise.all(later);
}

describe('GroupCommit', () => {
  it('flushes at once, and batches what arrives while a flush is under way', async () => {
    const writer = recordingFlush();
    const commit = new GroupCommit(writer.flush);
    const first = commit.submit(1);
    const later = [commit.submit(2), commit.submit(3)];
    expect(writer.batches).toEqual([[1]]);
    writer.finish();
    await first;
    await expectFlushedTogether(writer, later);
  });

  it('rejects every submission of a failed flush, and still flushes what came after it', async () => {
    const writer = recordingFlush();
    const commit = new GroupCommit(writer.flush);
    const failed = commit.submit(1).catch((err: Error) => err.message);
    const later = [commit.submit(2), commit.submit(3)];
    writer.failNext(new Error('disk full'));
    writer.finish();
    expect(await failed).toBe('disk full');
    await expectFlushedTogether(writer, later);
  });

  it('idle() resolves once everything submitted so far has settled', async () => {
    const writer = recordingFlush();
    const commit = new GroupCommit(writer.flush);
    let settled = 0;
    for (const item of [1, 2, 3]) void commit.submit(item).then(() => settled++);
    const idle = commit.idle();
    writer.finish();
    await vi.waitFor(() => expect(writer.batches).toEqual([[1], [2, 3]]));
    writer.finish();
    await idle;
    expect(settled).toBe(3);
  });
});
