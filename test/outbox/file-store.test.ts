import { spawnSync } from 'node:child_process';
import { readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  fileStore,
  OutboxFullError,
  OutboxLockedError,
  OutboxStoreError,
  type StoredEvent,
} from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { storedEvent } from './fixtures/stored-events.js';
import { tempDirPerTest } from './fixtures/temp-dir.js';
import { expectTornLastRecordDropped } from './fixtures/torn-journal.js';

let dir: string;
tempDirPerTest('outbox-file-store-', (path) => {
  dir = path;
});

async function reopen(path = dir) {
  const store = fileStore(path);
  const snapshot = await store.open();
  await store.close();
  return snapshot;
}

describe('fileStore', () => {
  it('gives back, after a restart, every appended event with its journalled state changes', async () => {
    const store = fileStore(dir);
    expect((await store.open()).events).toEqual([]);
    const [a, b, c] = [storedEvent(1), storedEvent(2), storedEvent(3, 'tenant-b')];
    await Promise.all([store.append(a), store.append(b), store.append(c)]);
    await store.update(a.eventId, {
      state: 'parked',
      attempts: 2,
      lastError: { code: 'BRANCH_MAPPING_UNCONFIRMED', message: 'm', status: 400 },
    });
    await store.update(b.eventId, { firstAttemptAt: 1_760_000_000_500, attempts: 1 });
    await store.remove([c.eventId]);
    await store.setTenantStop('tenant-b', { tenantId: 'tenant-b', reason: 'Disconnected', since: 5 });
    await store.close();

    const snapshot = await reopen();
    expect(snapshot.events).toEqual([
      {
        ...a,
        state: 'parked',
        attempts: 2,
        lastError: { code: 'BRANCH_MAPPING_UNCONFIRMED', message: 'm', status: 400 },
      },
      { ...b, firstAttemptAt: 1_760_000_000_500, attempts: 1 },
    ]);
    expect(snapshot.stoppedTenants).toEqual([{ tenantId: 'tenant-b', reason: 'Disconnected', since: 5 }]);
  });

  it('commits concurrent appends as a group: far fewer fsyncs than events, and all of them durable', async () => {
    const store = fileStore(dir);
    await store.open();
    const events = Array.from({ length: 200 }, (_, i) => storedEvent(i + 1));
    await Promise.all(events.map((event) => store.append(event)));
    const { flushes, records } = store.stats();
    await store.close();

    expect(records).toBe(200);
    expect(flushes).toBeLessThanOrEqual(5);
    expect((await reopen()).events.map((event) => event.eventId)).toEqual(
      events.map((event) => event.eventId),
    );
  });

  it('drops a torn last record (a spread of cut positions), never throws and keeps every complete record', async () => {
    // Every byte offset is the slow suite's (file-store-torn.slow.test.ts); here the edges and
    // a few positions between them.
    await expectTornLastRecordDropped(dir, (lastStart, end) => {
      const middle = Math.floor((lastStart + end) / 2);
      return [lastStart, lastStart + 1, lastStart + 8, middle, end - 1, end];
    });
  });

  it('never reads a record whose bytes were damaged: the checksum stops the reader there', async () => {
    const store = fileStore(dir);
    await store.open();
    await store.append(storedEvent(1));
    const journal = join(dir, 'outbox.journal');
    const beforeLast = (await stat(journal)).size;
    const last = storedEvent(2);
    await store.append(last);
    await store.close();
    const bytes = await readFile(journal);
    // Flip one bit inside the last record's JSON body: still valid JSON shape-wise, wrong checksum.
    bytes[beforeLast + 40] = bytes[beforeLast + 40]! ^ 0x01;
    await writeFile(journal, bytes);

    const snapshot = await reopen();
    expect(snapshot.events.map((event) => event.seq)).toEqual([1]);
  });

  it('appends after a recovered torn tail land where the next open reads them', async () => {
    const store = fileStore(dir);
    await store.open();
    await store.append(storedEvent(1));
    await store.append(storedEvent(2));
    await store.close();
    const journal = join(dir, 'outbox.journal');
    await truncate(journal, (await stat(journal)).size - 3);

    const again = fileStore(dir);
    expect((await again.open()).events.map((event) => event.seq)).toEqual([1]);
    await again.append(storedEvent(3));
    await again.close();
    expect((await reopen()).events.map((event) => event.seq)).toEqual([1, 3]);
  });

  it('refuses an append past maxEvents with OUTBOX_FULL, stores nothing, and has room again after a removal', async () => {
    const store = fileStore(dir, { maxEvents: 2 });
    await store.open();
    const [a, b, c] = [storedEvent(1), storedEvent(2), storedEvent(3)];
    await store.append(a);
    await store.append(b);
    const refusal = await store.append(c).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(OutboxFullError);
    expect(refusal).toMatchObject({ code: 'OUTBOX_FULL', limit: 'maxEvents', max: 2 });
    await store.remove([a.eventId]);
    await store.append(c);
    await store.close();
    expect((await reopen()).events.map((event) => event.seq)).toEqual([2, 3]);
  });

  it('refuses concurrent appends that together would pass maxBytes, keeping the ones that fit', async () => {
    const one = storedEvent(1);
    const recordBytes = JSON.stringify({ op: 'put', event: one }).length + 8;
    const store = fileStore(dir, { maxBytes: recordBytes * 2 + recordBytes / 2 });
    await store.open();
    const results = await Promise.allSettled(
      [one, storedEvent(2), storedEvent(3)].map((event) => store.append(event)),
    );
    await store.close();
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'OUTBOX_FULL',
      limit: 'maxBytes',
    });
    expect((await reopen()).events).toHaveLength(2);
  });

  it('compacts when dead space outgrows the live records, and keeps exactly the live ones', async () => {
    const store = fileStore(dir, { compactAfterBytes: 4096 });
    await store.open();
    const kept: StoredEvent[] = [];
    for (let i = 1; i <= 60; i++) {
      const event = storedEvent(i);
      await store.append(event);
      if (i % 10 === 0) kept.push(event);
      else await store.remove([event.eventId]);
    }
    const { compactions } = store.stats();
    await store.close();
    const size = (await stat(join(dir, 'outbox.journal'))).size;

    expect(compactions).toBeGreaterThan(1);
    expect(size).toBeLessThan(kept.length * 1500 + 4096 * 2);
    expect((await reopen()).events).toEqual(kept);
    expect((await readdir(dir)).sort()).toEqual(['outbox.journal']);
  });

  it('refuses a second store on the same directory while the first holds the lock', async () => {
    const first = fileStore(dir);
    await first.open();
    const second = fileStore(dir);
    const refusal = await second.open().catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(OutboxLockedError);
    expect(refusal).toMatchObject({ code: 'OUTBOX_LOCKED', pid: process.pid });
    await first.close();
    await expect(reopen()).resolves.toMatchObject({ events: [] });
  });

  it('takes over the lock left by a process that no longer runs', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await writeFile(join(dir, 'outbox.lock'), `${gone.stdout}\n`);
    const store = fileStore(dir);
    await store.open();
    expect((await readFile(join(dir, 'outbox.lock'), 'utf8')).split('\n')[0]).toBe(String(process.pid));
    await store.close();
  });

  it('refuses to replay a file that is not an outbox journal, and leaves it untouched', async () => {
    await writeFile(join(dir, 'outbox.journal'), 'something else entirely\n');
    const refusal = await fileStore(dir)
      .open()
      .catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(OutboxStoreError);
    expect(await readFile(join(dir, 'outbox.journal'), 'utf8')).toBe('something else entirely\n');
    await expect(reopen(join(dir, 'fresh'))).resolves.toMatchObject({ events: [] });
  });
});
