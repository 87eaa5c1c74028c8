import { describe, it } from 'vitest';
import { useTempDir } from '../support/temp-dir.js';
import { expectTornLastRecordDropped } from './fixtures/torn-journal.js';

// Slow suite (`npm run test:slow`, run by `.ci/run`): one open and close of the store per byte of
// the last record takes longer than a unit test may on a loaded 2-core machine. `npm test` runs a
// spread of the same cuts in `file-store.test.ts`.

const dir = useTempDir('outbox-file-store-torn-');

describe('fileStore', () => {
  it('drops a torn last record at every byte offset, never throws and keeps every complete record', async () => {
    await expectTornLastRecordDropped(dir(), (lastStart, end) =>
      Array.from({ length: end - lastStart + 1 }, (_, i) => lastStart + i),
    );
  });
});
