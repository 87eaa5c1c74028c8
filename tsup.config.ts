import { mkdir, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { renderSchemaSql } from './src/postgres/schema/render.js';

/**
 * A plain tsup build: one bundle per public entry, with esbuild's own code splitting in ESM and
 * in CommonJS, so that each module of `src/` lands in exactly one file per format (a class that
 * two entries export is the same class; test/package/one-copy.test.ts) and a new file under
 * `src/` needs no build configuration.
 *
 * Two builds per entry point of `.`, `/signature` and `/webhooks`: the Web build (`index`, ...),
 * free of `node:*` and undici (test/package/bundle-size.test.ts), and the Node build
 * (`index.node`, ...), which package.json serves under the `node` export condition.
 */
const entry = {
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
};

export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  splitting: true,
  sourcemap: true,
  treeshake: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  // Bundled, tree-shaken to what `src/` calls. zod: imported from node_modules, its 200-odd
  // modules would cost the root and `/webhooks` their cold-import goals (bench/import-time.mjs).
  // uuid: ESM-only, and the Node lines of `engines` before 20.19 cannot require() ESM.
  noExternal: ['zod', 'uuid'],
  // The Postgres schema as a file, for teams that run their own migrations
  // (`loyalty-partner-sdk/postgres/schema.sql`): rendered from the steps `migrate` runs.
  async onSuccess() {
    await mkdir('dist/postgres', { recursive: true });
    await writeFile('dist/postgres/schema.sql', renderSchemaSql('loyalty'));
  },
});
