import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileStore } from 'loyalty-partner-sdk/outbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storedEvent } from './fixtures/stored-events.js';

// Slow suite (`npm run test:slow`, run by `.ci/run`): one open and close of the store per byte of
// the last record takes longer than a unit test may on a loaded 2-core machine. `npm test` runs a
// spread of the same cuts in `file-store.test.ts`.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-file-store-torn-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fileStore', () => {
  it('drops a torn last record at every byte offset, never throws and keeps every complete record', async () => {
    const store = fileStore(dir);
    await store.open();
    const events = [storedEvent(1), storedEvent(2), storedEvent(3)];
    for (const event of events.slice(0, 2)) await store.append(event);
    const journal = join(dir, 'outbox.journal');
    const beforeLast = (await stat(journal)).size;
    await store.append(events[2]!);
    await store.close();
    const whole = await readFile(journal);
    expect(whole.length).toBeGreaterThan(beforeLast + 8);

    const copy = join(dir, 'copy');
    for (let cut = beforeLast; cut <= whole.length; cut++) {
      await rm(copy, { recursive: true, force: true });
      await mkdir(copy);
      await writeFile(join(copy, 'outbox.journal'), whole.subarray(0, cut));
      const store = fileStore(copy);
      const snapshot = await store.open();
      const expected = cut === whole.length ? events : events.slice(0, 2);
      expect(snapshot.events).toEqual(expected);
      expect(store.stats().recoveredBytes).toBe(cut === whole.length ? 0 : cut - beforeLast);
      await store.close();
    }
  });
});
