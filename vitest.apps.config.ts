import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// `npm run test:apps`: the real apps that take minutes (Next.js builds, Bun, Deno, workerd),
// each started as its own process from the built package; `npm run test:apps` builds first.
export default defineConfig({
  resolve: base.resolve,
  test: {
    include: ['test/apps/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // One app at a time: a Next.js build wants both cores of this machine.
    fileParallelism: false,
  },
});
