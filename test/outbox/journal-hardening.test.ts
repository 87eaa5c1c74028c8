import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fileStore,
  memoryStore,
  OutboxClosedError,
  OutboxDuplicateRiskError,
  OutboxEventStateError,
  OutboxFullError,
  OutboxLockedError,
  OutboxNotStartedError,
  OutboxStoreError,
} from 'loyalty-partner-sdk/outbox';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeJournal } from '../../src/outbox/journal-codec.js';
import { fastOutbox, invoice, until } from './fixtures/outbox-harness.js';
import { networkError, ok, scriptedSender } from './fixtures/scripted-sender.js';
import { storedEvent } from './fixtures/stored-events.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-hard-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const JOURNAL = () => join(dir, 'outbox.journal');

/** A journal of 100 acknowledged events, written and closed by the store itself. */
async function hundredEventJournal(): Promise<{ bytes: Uint8Array; ids: string[] }> {
  const store = fileStore(dir);
  await store.open();
  const events = Array.from({ length: 100 }, (_, i) => storedEvent(i + 1));
  await Promise.all(events.map((event) => store.append(event)));
  await store.close();
  return { bytes: await readFile(JOURNAL()), ids: events.map((event) => event.eventId) };
}

describe('a damaged journal', () => {
  it('keeps every other record whichever byte of a 100-record journal is flipped', async () => {
    const { bytes } = await hundredEventJournal();
    const intact = decodeJournal(bytes);
    expect(intact.records).toHaveLength(100);
    const frames: [number, number][] = [];
    let offset = bytes.length - intact.records.reduce((sum, { size }) => sum + size, 0);
    for (const { size } of intact.records) {
      frames.push([offset, offset + size]);
      offset += size;
    }
    // Every byte of the header and of the first, middle and last records (length, checksum,
    // body: every position a frame has), and one byte at a different place in every other one.
    // Every byte of all 100 takes minutes on a loaded 2-core machine; these cover every kind.
    const positions = new Set<number>();
    for (let at = 0; at < frames[0]![0]; at++) positions.add(at);
    for (const n of [0, 49, 99]) for (let at = frames[n]![0]; at < frames[n]![1]; at++) positions.add(at);
    for (const [n, [start, end]] of frames.entries()) positions.add(start + ((n * 37) % (end - start)));

    const losses: string[] = [];
    for (const at of positions) {
      bytes[at]! ^= 0xff;
      const decoded = decodeJournal(bytes);
      bytes[at]! ^= 0xff;
      const kept = frames.filter(([start, end]) => at < start || at >= end).length;
      if (decoded.records.length !== kept || !decoded.isJournal)
        losses.push(`byte ${at}: ${decoded.records.length}/${kept}`);
      if (decoded.damagedRegions + decoded.droppedBytes === 0) losses.push(`byte ${at}: damage not reported`);
    }
    expect(positions.size).toBeGreaterThan(1_000);
    expect(losses).toEqual([]);
  });

  it('opens past a flipped bit and a zeroed checksum, keeps the damaged file aside and reports the loss', async () => {
    const { bytes, ids } = await hundredEventJournal();
    const { records } = decodeJournal(bytes);
    const startOf = (n: number) => bytes.length - records.slice(n).reduce((sum, { size }) => sum + size, 0);
    const damaged = Uint8Array.from(bytes);
    damaged.fill(0, startOf(1) + 4, startOf(1) + 8); // the CRC of record 2
    damaged[startOf(49) + 40]! ^= 0x01; // one bit in the middle of record 50
    await writeFile(JOURNAL(), damaged);
    const reports: unknown[] = [];

    const store = fileStore(dir, { onDamage: (damage) => reports.push(damage) });
    const snapshot = await store.open();
    await store.close();
    const reopened = await fileStore(dir)
      .open()
      .then((again) => again.events);

    const survivors = ids.filter((_, i) => i !== 1 && i !== 49);
    expect(snapshot.events.map((event) => event.eventId)).toEqual(survivors);
    expect(reopened.map((event) => event.eventId)).toEqual(survivors);
    expect(store.stats().lostRecords).toBe(2);
    expect(reports).toEqual([expect.objectContaining({ lostRecords: 2 })]);
    const aside = (await readdir(dir)).filter((name) => name.startsWith('outbox.journal.damaged-'));
    expect(aside).toHaveLength(1);
    expect(Buffer.compare(await readFile(join(dir, aside[0]!)), damaged)).toBe(0);
  });
});

describe('the directory lock', () => {
  const lock = () => join(dir, 'outbox.lock');

  it("takes over a lock naming this process's own pid, as a container restarted as the same PID would find it", async () => {
    await writeFile(lock(), `${process.pid}\nprevious-life\n`);
    const store = fileStore(dir);
    await store.open();
    expect((await readFile(lock(), 'utf8')).split('\n')[1]).not.toBe('previous-life');
    await store.close();
  });

  it('takes over a lock naming a live pid (PID 1) once its owner stopped renewing it', async () => {
    await writeFile(lock(), '1\nlong-gone\n');
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lock(), minuteAgo, minuteAgo);
    const store = fileStore(dir);
    await store.open();
    await store.close();
  });

  it('refuses a lock its owner renewed recently', async () => {
    await writeFile(lock(), '1\nalive\n');
    await expect(fileStore(dir).open()).rejects.toBeInstanceOf(OutboxLockedError);
  });
});

describe('a directory the store cannot use', () => {
  it('names the directory and the fix when a file stands where the directory should be', async () => {
    await writeFile(join(dir, 'file'), '');
    const target = join(dir, 'file', 'outbox');
    const refusal = await fileStore(target)
      .open()
      .catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(OutboxStoreError);
    expect(refusal).toMatchObject({ dir: target, errno: 'ENOTDIR' });
    expect((refusal as Error).message).toContain(target);
  });
});

describe('a compaction that cannot run (no room)', () => {
  it('starts, delivers, and reports the failed compaction through a hook', async () => {
    await mkdir(join(dir, 'outbox.journal.tmp')); // the compaction's temporary file cannot be created
    const failures: unknown[] = [];
    const store = fileStore(dir, { onCompactionError: (cause) => failures.push(cause) });
    const { sender, calls } = scriptedSender(() => ok());
    const outbox = fastOutbox({ client: sender, store });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.flush();
    await outbox.close();

    expect(calls).toHaveLength(1);
    expect(failures.length).toBeGreaterThan(0);
    expect(store.stats().failedCompactions).toBe(failures.length);
  });
});

describe('retries on a monotonic clock', () => {
  it('retries on time after the wall clock is set back an hour', async () => {
    let wall = Date.now();
    let failures = 1;
    const { sender, calls } = scriptedSender(() => {
      if (failures-- > 0) {
        wall -= 3_600_000; // NTP sets the clock back while the retry waits
        return networkError(1);
      }
      return ok();
    });
    const outbox = fastOutbox({ client: sender, store: memoryStore(), now: () => wall, retryDelayMs: 5 });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await until(() => outbox.stats().delivered === 1);
    await outbox.close();
    expect(calls).toHaveLength(2);
  });
});

describe('outbox errors', () => {
  it('each carry their own name', () => {
    const errors = [
      new OutboxFullError('maxEvents', 1),
      new OutboxClosedError(),
      new OutboxNotStartedError(),
      new OutboxLockedError('/d', 1),
      new OutboxStoreError('m'),
      new OutboxEventStateError('e', 'pending', 'redeliver'),
      new OutboxDuplicateRiskError('e'),
    ];
    expect(errors.map((error) => error.name)).toEqual([
      'OutboxFullError',
      'OutboxClosedError',
      'OutboxNotStartedError',
      'OutboxLockedError',
      'OutboxStoreError',
      'OutboxEventStateError',
      'OutboxDuplicateRiskError',
    ]);
  });
});
