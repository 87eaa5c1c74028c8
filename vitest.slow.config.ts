import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:slow`: tests that take a minute or more by design (every byte of a journal
// flipped in turn, every sample of the guides run in a fresh project), kept out of `npm test` and
// run by `.ci/run`.
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['test/**/*.slow.test.ts'],
    // PostgreSQL and Redis for the guides' samples (test/docs/samples.slow.test.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
