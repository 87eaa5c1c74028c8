import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJournal } from '../../src/outbox/journal-codec.js';
import {
  type HundredEventJournal,
  hundredEventJournal,
  survivorsOf,
} from './fixtures/hundred-event-journal.js';

// Slow suite (`npm run test:slow`, run by `.ci/run`): about 62,000 positions, each a full read of
// the journal as `start()` reads it, take a minute or more on a loaded 2-core machine. The public
// `start()` on a spread of these positions (damaged file kept aside, `onDamage`, `stats()`) is in
// `journal-hardening.test.ts`, which runs with every `npm test`.

let dir: string;
let journal: HundredEventJournal;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-every-byte-'));
  journal = await hundredEventJournal(dir);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a 100-record journal with one byte flipped, for every byte in turn', () => {
  it('keeps every intact record, in order, and counts what was lost', () => {
    const { bytes, frames } = journal;
    const last = frames.length - 1;
    const recordAt = (at: number) => frames.findIndex(([start, end]) => at >= start && at < end);
    const failures: string[] = [];
    for (let at = 0; at < bytes.length; at++) {
      bytes[at]! ^= 0xff;
      const decoded = decodeJournal(bytes);
      bytes[at]! ^= 0xff;
      const kept = decoded.records.map(({ record }) =>
        record.op === 'put' ? record.event.eventId : record.op,
      );
      if (kept.join() !== survivorsOf(journal, at).join()) {
        failures.push(
          `byte ${at}: kept ${kept.length} records, not the ${survivorsOf(journal, at).length} intact ones`,
        );
        continue;
      }
      const n = recordAt(at);
      // The header or a record followed by others: one damaged stretch, exactly that record's bytes
      // (or the header's). The last record: nothing intact follows it, so it cannot be told from
      // a write torn by a crash; it is dropped as a torn tail and counted in `droppedBytes`.
      const size = n === -1 ? 0 : frames[n]![1] - frames[n]![0];
      const reported =
        n === last
          ? decoded.damagedRegions === 0 && decoded.droppedBytes === size
          : decoded.damagedRegions === 1 && decoded.damagedBytes === size && decoded.droppedBytes === 0;
      if (!reported || !decoded.isJournal)
        failures.push(
          `byte ${at}: damagedRegions ${decoded.damagedRegions}, damagedBytes ${decoded.damagedBytes}, droppedBytes ${decoded.droppedBytes}`,
        );
    }
    expect(bytes.length).toBeGreaterThan(100 * 200);
    expect(failures.slice(0, 20)).toEqual([]);
  });
});
