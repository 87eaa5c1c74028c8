import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Tests import the package by its public names, exactly as a user would.
    alias: [
      { find: /^loyalty-partner-sdk$/, replacement: src('platform-node/index.ts') },
      { find: /^loyalty-partner-sdk\/signature$/, replacement: src('signature/index.ts') },
      { find: /^loyalty-partner-sdk\/webhooks$/, replacement: src('webhooks/index.ts') },
      { find: /^loyalty-partner-sdk\/node$/, replacement: src('adapters/node.ts') },
      { find: /^loyalty-partner-sdk\/express$/, replacement: src('adapters/express.ts') },
      { find: /^loyalty-partner-sdk\/next$/, replacement: src('adapters/next.ts') },
      { find: /^loyalty-partner-sdk\/fetch$/, replacement: src('adapters/fetch.ts') },
      { find: /^loyalty-partner-sdk\/outbox$/, replacement: src('outbox/index.ts') },
      { find: /^loyalty-partner-sdk\/testing$/, replacement: src('testing/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
