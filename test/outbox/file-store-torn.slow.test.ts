import { describe, it } from 'vitest';
import { tempDirPerTest } from './fixtures/temp-dir.js';
import { expectTornLastRecordDropped } from './fixtures/torn-journal.js';

// Slow suite (`npm run test:slow`, run by `.ci/run`): one open and close of the store per byte of
// the last record takes longer than a unit test may on a loaded 2-core machine. `npm test` runs a
// spread of the same cuts in `file-store.test.ts`.

let dir: string;
tempDirPerTest('outbox-file-store-torn-', (path) => {
  dir = path;
});

describe('fileStore', () => {
  it('drops a torn last record at every byte offset, never throws and keeps every complete record', async () => {
    await expectTornLastRecordDropped(dir, (lastStart, end) =>
      Array.from({ length: end - lastStart + 1 }, (_, i) => lastStart + i),
    );
  });
});
