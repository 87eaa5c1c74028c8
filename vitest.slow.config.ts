import { defineConfig } from 'vitest/config';
import base, { slowSuites } from './vitest.config.js';

// `npm run test:slow`: the suites that take a minute or more (many processes, SIGKILLs, packing
// and installing the package, every byte of a journal flipped), kept out of `npm test` and run by
// `.ci/run`. They use the built package where they pack it: `npm run test:slow` builds first.
export default defineConfig({
  resolve: base.resolve,
  test: {
    ...base.test,
    include: slowSuites,
    exclude: ['node_modules/**'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
