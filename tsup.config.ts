import { copyFile, mkdir } from 'node:fs/promises';
import { defineConfig } from 'tsup';

/**
 * One build for every entry point so that ESM and CommonJS each share their chunks:
 * `LoyaltyApiError` imported from the root and caught from `loyalty-partner-sdk/outbox`
 * is the same class. The `.node` entries are what the `node` export condition resolves to;
 * the others are the Web (edge, browser, kiosk webview) builds and must stay free of
 * `node:*` and undici, which `test/package/bundle-size.test.ts` enforces.
 */
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'index.node': 'src/platform-node/index.ts',
    signature: 'src/signature/index.ts',
    'signature.node': 'src/platform-node/signature.ts',
    webhooks: 'src/webhooks/index.ts',
    'webhooks.node': 'src/platform-node/webhooks.ts',
    node: 'src/adapters/node.ts',
    express: 'src/adapters/express.ts',
    next: 'src/adapters/next.ts',
    fetch: 'src/adapters/fetch.ts',
    fastify: 'src/adapters/fastify.ts',
    koa: 'src/adapters/koa.ts',
    outbox: 'src/outbox/index.ts',
    testing: 'src/testing/index.ts',
    postgres: 'src/postgres/index.ts',
    redis: 'src/redis/index.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  splitting: true,
  treeshake: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  // zod is bundled (tree-shaken) rather than imported: its 200-odd modules cost about 80 ms of
  // cold start, which every serverless receiver and CLI run would pay. See docs/ARCHITECTURE.md.
  noExternal: ['zod'],
  // The Postgres schema as a file, for teams that run their own migrations
  // (`loyalty-partner-sdk/postgres/schema.sql`); test/postgres/schema-file.test.ts keeps it equal
  // to what `migrate` runs.
  async onSuccess() {
    await mkdir('dist/postgres', { recursive: true });
    await copyFile('src/postgres/schema.sql', 'dist/postgres/schema.sql');
  },
});
