import { defineConfig } from 'vitest/config';
import base, { common, slowSuites } from './vitest.config.js';

// `npm run test:slow`: the suites that take a minute or more (many processes, SIGKILLs, packing
// and installing the package, every byte of a journal flipped, every sample of the guides run in
// a fresh project), kept out of `npm test` and run by `.ci/run`. `npm run test:slow` builds first.
export default defineConfig({
  resolve: base.resolve,
  test: {
    ...common,
    include: slowSuites,
    exclude: ['node_modules/**'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    // One file at a time: each of these fills both cores of a small machine by itself (processes,
    // installs, builds), and the guides' samples check answers the kit times.
    fileParallelism: false,
  },
});
