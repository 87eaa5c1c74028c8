import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Suites that run many processes or pack and install the package: each takes a minute or more on
 * a small machine, so `npm test` leaves them to `npm run test:slow` (which `.ci/run` runs), with
 * the tests slow by design (`*.slow.test.ts`). Every real server still runs in `npm test`.
 */
export const slowSuites = [
  'test/**/*.slow.test.ts',
  'test/cli/backfill-memory.test.ts',
  'test/cli/check-receiver-answers.test.ts',
  'test/outbox/crash.test.ts',
  'test/package/consumer.test.ts',
  'test/package/one-copy.test.ts',
  'test/package/quick-starts.test.ts',
  'test/postgres/inbox-processes.test.ts',
  'test/postgres/outbox-pooler.test.ts',
  'test/postgres/outbox-pos.test.ts',
  'test/postgres/receivers.test.ts',
  'test/webhooks/deferred-processes.test.ts',
];

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));
/** `loyalty-partner-sdk` followed by `subpath` (empty for the root entry), resolved to `file`. */
const entry = (subpath: string, file: string) => ({
  find: new RegExp(`^loyalty-partner-sdk${subpath}$`),
  replacement: src(file),
});

/** What every run of the suite shares: `npm run test:slow` starts from it too. */
export const common: { globalSetup: string[]; testTimeout: number; hookTimeout: number; pool: 'forks' } = {
  globalSetup: ['test/support/global-setup.ts'],
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: 'forks',
};

// Files run side by side: each uses its own schema, key prefix, temp dir and ports on the one
// PostgreSQL and Redis the global setup starts, and most of their time is spent waiting on those
// servers and on child processes: two workers per core keep both cores busy.
const workers = 2 * availableParallelism();

export default defineConfig({
  resolve: {
    // Tests import the package by its public names, resolved as Node resolves them (the `node`
    // export condition); tests of a Web build import its source file by path.
    alias: [
      entry('', 'platform-node/index.ts'),
      ...['signature', 'webhooks'].map((name) => entry(`/${name}`, `platform-node/${name}.ts`)),
      ...['node', 'express', 'next', 'fetch', 'fastify', 'koa'].map((name) =>
        entry(`/${name}`, `adapters/${name}.ts`),
      ),
      ...['outbox', 'testing', 'postgres', 'redis'].map((name) => entry(`/${name}`, `${name}/index.ts`)),
    ],
  },
  test: {
    ...common,
    include: ['test/**/*.test.ts'],
    // The real apps (Next.js builds, Bun, Deno, workerd) take minutes: `npm run test:apps`.
    exclude: ['test/apps/**', ...slowSuites, 'node_modules/**'],
    maxWorkers: workers,
    // As many from the start: a worker let go while idle ends with tinypool's "Terminating
    // worker thread" rejection once workers are kept from file to file.
    minWorkers: workers,
    // A worker runs file after file and keeps the modules it loaded: the SDK's sources and the
    // drivers load once per worker instead of once per file, which takes a third off the suite's
    // time. So each file cleans up after itself (servers, timers, mocks, process listeners), and
    // a test of what importing the SDK does to a process runs it in a child process.
    poolOptions: { forks: { isolate: false } },
  },
});
