import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
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
import { describe, expect, it } from 'vitest';
import { hundredEventJournal, survivorsOf } from './fixtures/hundred-event-journal.js';
import { fastOutbox, invoice, until } from './fixtures/outbox-harness.js';
import { gate, networkError, ok, scriptedSender } from './fixtures/scripted-sender.js';
import { tempDirPerTest } from './fixtures/temp-dir.js';

let dir: string;
tempDirPerTest('outbox-hard-', (path) => {
  dir = path;
});

const JOURNAL = () => join(dir, 'outbox.journal');

describe('a damaged journal', () => {
  // Every byte in turn, read as `start()` reads the journal: journal-every-byte.slow.test.ts
  // (`npm run test:slow`). Here, the whole `start()` for a spread of those positions.
  it('starts with every intact event after one flipped byte, keeps the damaged file aside and reports one record lost', async () => {
    const journal = await hundredEventJournal(dir);
    const positions = [0, 5]; // the magic header
    for (const n of [0, 1, 49, 50, 97, 98]) {
      const [start, end] = journal.frames[n]!;
      // Length, checksum, first and middle and last byte of the body.
      positions.push(start, start + 3, start + 4, start + 8, (start + end) >> 1, end - 1);
    }
    const failures: string[] = [];
    for (const at of positions) {
      const damaged = Uint8Array.from(journal.bytes);
      damaged[at]! ^= 0xff;
      const here = join(dir, `flip-${at}`);
      await mkdir(here);
      await writeFile(join(here, 'outbox.journal'), damaged);
      const reports: { damagedCopy: string; lostRecords: number }[] = [];
      const store = fileStore(here, { onDamage: (damage) => reports.push(damage) });
      // The service never answers: what `start()` recovered stays pending, to be listed.
      const outbox = fastOutbox({ client: scriptedSender(() => gate<Error>().promise).sender, store });
      await outbox.start();
      const pending = (await outbox.list('pending')).map((event) => event.eventId);
      await outbox.close({ deadlineMs: 0 });
      const aside = reports[0] ? await readFile(reports[0].damagedCopy) : undefined;
      const seen = {
        pending: pending.join() === survivorsOf(journal, at).join(),
        lost: store.stats().lostRecords,
        reports: reports.map((report) => report.lostRecords),
        asideUntouched: aside !== undefined && Buffer.compare(aside, damaged) === 0,
      };
      const wanted = { pending: true, lost: 1, reports: [1], asideUntouched: true };
      if (JSON.stringify(seen) !== JSON.stringify(wanted))
        failures.push(`byte ${at}: ${JSON.stringify(seen)}`);
    }
    expect(failures).toEqual([]);
  });

  it('drops damage in the last record as a torn write, counted in recoveredBytes', async () => {
    const journal = await hundredEventJournal(dir);
    const [start, end] = journal.frames[99]!;
    const damaged = Uint8Array.from(journal.bytes);
    damaged[(start + end) >> 1]! ^= 0xff;
    await writeFile(JOURNAL(), damaged);
    const store = fileStore(dir);
    const { events } = await store.open();
    await store.close();
    expect(events.map((event) => event.eventId)).toEqual(journal.ids.slice(0, 99));
    expect(store.stats()).toMatchObject({ recoveredBytes: end - start, lostRecords: 0 });
  });

  it('opens past a flipped bit and a zeroed checksum, keeps the damaged file aside and reports the loss', async () => {
    const { bytes, ids, frames } = await hundredEventJournal(dir);
    const startOf = (n: number) => frames[n]![0];
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

describe('close() while a first attempt is being recorded', () => {
  it('sends nothing once close() has given up on in-flight events', async () => {
    const store = memoryStore();
    const recorded = gate();
    const patching = gate();
    const update = store.update.bind(store);
    store.update = async (eventId, patch) => {
      patching.open();
      await recorded.promise; // the fsync of `firstAttemptAt` outlasts close's deadline
      return update(eventId, patch);
    };
    const { sender, calls } = scriptedSender(() => ok());
    const outbox = fastOutbox({ client: sender, store });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await patching.promise;
    const closed = outbox.close({ deadlineMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 10));
    recorded.open();
    await closed;
    expect(calls).toEqual([]);
  });
});
