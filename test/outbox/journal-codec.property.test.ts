import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JournalRecord } from '../../src/outbox/event-table.js';
import {
  decodeEncryptedJournal,
  encodeBody,
  encryptedHeader,
  frameBody,
  newJournalId,
  recordBytes,
  SEALED_CHUNK_BYTES,
  sealedChunks,
} from '../../src/outbox/journal-codec.js';
import { RecordCipher } from '../../src/outbox/record-cipher.js';

// State records of every size a journal writes, from a bare removal to one past a whole chunk.
const record: fc.Arbitrary<JournalRecord> = fc.oneof(
  fc.record({ op: fc.constant('del' as const), id: fc.string({ minLength: 1, maxLength: 40 }) }),
  fc.record({
    op: fc.constant('patch' as const),
    id: fc.uuid(),
    patch: fc.record({
      attempts: fc.nat(),
      lastError: fc.option(fc.record({ message: fc.string({ maxLength: 6000 }) })),
    }),
  }) as fc.Arbitrary<JournalRecord>,
);

describe('an encrypted journal sealed in chunks', () => {
  it('reads back every record, in order, each counted as if sealed alone, from chunks no larger than a sector unless one record is', () => {
    const cipher = new RecordCipher([randomBytes(32)]);
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 60 }), (records) => {
        const bodies = records.map(encodeBody);
        const chunks = sealedChunks(bodies);
        for (const chunk of chunks) {
          const alone = bodies.some((body) => chunk.length === 1 + 4 + body.length);
          expect(chunk.length <= SEALED_CHUNK_BYTES || alone).toBe(true);
        }
        const journalId = newJournalId();
        const frames = chunks.map((chunk, i) => frameBody(cipher.seal(chunk, journalId, i + 1)));
        const decoded = decodeEncryptedJournal(
          Buffer.concat([encryptedHeader(journalId, cipher.primaryId), ...frames]),
          cipher,
        );
        expect(decoded.damagedRegions).toBe(0);
        expect(decoded.lastFrameNo).toBe(chunks.length);
        expect(decoded.records).toEqual(
          records.map((one, i) => ({ record: one, size: recordBytes(bodies[i]!, true) })),
        );
      }),
      { numRuns: 200 },
    );
  });
});
