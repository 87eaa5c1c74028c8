import { copyFile, mkdir } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { type LayerPlan, layerEntries, layersPlugin } from './scripts/build-layers.js';

/**
 * Who bundles each module of `src/` (scripts/build-layers.ts explains the mechanism, and
 * docs/ARCHITECTURE.md "The build" draws it). Node's ESM loader pays about 1 ms per file, so each
 * entry's import graph is a few files instead of esbuild's shared chunks (14 for `/webhooks`
 * before), and each module still lives in ONE file, in ESM and in CJS: `LoyaltyApiError` imported
 * from the root and caught from `/outbox` is the same class.
 *
 * - `layer-signature`: the errors, the tolerance and signature/: small, with no lazy import, so a
 *   browser bundle of `/signature` holds nothing else (its 2 KB budget).
 * - `layer-core`: the other contract facts, telemetry, the receiver, the adapters' shared code.
 * - `layer-delivery`: what the receiver loads on its first verified delivery (outbound schemas,
 *   the parser), apart from the client so that the Web `/webhooks` budget holds.
 * - `layer-client`: the client and the inbound schemas; `layer-zod`: zod, once, for both.
 * - `layer-testing`: the emulator, whose internals the CLI uses too.
 * Entries keep what only they use (the outbox, the stores, the CLI, the Node client, Node HMAC).
 * The Web entries (`index`, `signature`, `webhooks`, `fetch`, `next`) and the layers they load
 * stay free of `node:*` and undici (`test/package/bundle-size.test.ts`).
 */
const plan: LayerPlan = {
  owners: [
    { name: 'index', source: 'index.ts', owns: /^$/ },
    {
      name: 'index.node',
      source: 'platform-node/index.ts',
      owns: /^platform-node\/(client|undici-transport|create-envelope)\.ts$/,
    },
    { name: 'signature', source: 'signature/index.ts', owns: /^$/ },
    { name: 'signature.node', source: 'platform-node/signature.ts', owns: /^platform-node\/node-hmac\.ts$/ },
    { name: 'webhooks', source: 'webhooks/index.ts', owns: /^$/ },
    { name: 'webhooks.node', source: 'platform-node/webhooks.ts', owns: /^$/ },
    ...['node', 'express', 'next', 'fetch', 'fastify', 'koa'].map((name) => ({
      name,
      source: `adapters/${name}.ts`,
      owns: /^$/,
    })),
    { name: 'outbox', source: 'outbox/index.ts', owns: /^(outbox\/|telemetry\/outbox-telemetry)/ },
    { name: 'testing', source: 'testing/index.ts', owns: /^$/ },
    { name: 'postgres', source: 'postgres/index.ts', owns: /^postgres\// },
    { name: 'redis', source: 'redis/index.ts', owns: /^redis\// },
    { name: 'cli', source: 'cli/main.ts', owns: /^cli\// },
    // The Node build's compiled envelope check, loaded with the parser on the first delivery.
    {
      name: 'lazy-compiled-envelopes',
      source: 'platform-node/compiled-envelopes.ts',
      owns: /^$/,
      internal: true,
    },
    {
      name: 'layer-delivery',
      owns: /^(contract\/schemas\/(primitives|outbound-payloads|received-envelope)|webhooks\/parse-delivery)\.ts$/,
    },
    {
      name: 'layer-client',
      owns: /^(client\/(?!user-agent|backoff)|telemetry\/client-telemetry|contract\/(schemas\/|validate|validated-envelopes|create-envelope|index)|platform-node\/compiled-payloads)/,
    },
    {
      name: 'layer-core',
      owns: /^((telemetry|webhooks|adapters)\/|contract\/(?!(errors|issue-message|tolerance)\.ts$)|client\/(user-agent|backoff))/,
    },
    { name: 'layer-signature', owns: /^(signature\/|contract\/(errors|issue-message|tolerance)\.ts$)/ },
    { name: 'layer-testing', owns: /^testing\// },
  ],
  // Barrels (their re-exports point at the layers) and a stateless one-liner the stores share.
  copied: /^(index|signature\/index|webhooks\/index|outbox\/crc32)\.ts$/,
  // zod is bundled (tree-shaken, in a layer of its own) rather than imported: its 200-odd modules
  // cost about 80 ms of cold start, which every serverless receiver and CLI run would pay.
  zod: { layer: 'layer-zod', exclude: ['core', 'config'] },
};

const entry = await layerEntries(plan);
const publicEntries = Object.fromEntries(
  plan.owners
    .filter((owner) => owner.source && !owner.internal)
    .map((owner) => [owner.name, entry[owner.name]!]),
);

export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: { entry: publicEntries },
  sourcemap: true,
  // Off: the layers above replace esbuild's chunks (one per set of entries sharing a module).
  splitting: false,
  treeshake: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  outDir: 'dist',
  noExternal: ['zod'],
  esbuildPlugins: [layersPlugin(plan)],
  // The Postgres schema as a file, for teams that run their own migrations
  // (`loyalty-partner-sdk/postgres/schema.sql`); test/postgres/schema-file.test.ts keeps it equal
  // to what `migrate` runs.
  async onSuccess() {
    await mkdir('dist/postgres', { recursive: true });
    await copyFile('src/postgres/schema.sql', 'dist/postgres/schema.sql');
  },
});
