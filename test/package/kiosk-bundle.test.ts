import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { createEmulator, type Emulator } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A kiosk app shipped as one file, the way kiosks are deployed: the built package (dist/, through
// its exports map) bundled by esbuild with the client and the file outbox, started as its own
// process, sending one sale to the emulator. Needs `npm run build` (npm test runs it).
const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let work: string;
let emulator: Emulator;
let url: string;

const KIOSK_APP = `
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';

const [baseUrl, apiKey, signingSecret, dir] = process.argv.slice(2);
const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
const outbox = createOutbox({ client, store: fileStore(dir) });
await outbox.start();
await outbox.enqueue('BranchSynced', { externalBranchId: 'kiosk-branch', name: 'Kiosk 7', isActive: true });
const stats = await outbox.flush();
await outbox.close();
await client.close();
console.log(JSON.stringify({ delivered: stats.delivered, pending: stats.pending, dead: stats.dead }));
`;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/index.node.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  work = await mkdtemp(join(tmpdir(), 'kiosk-bundle-'));
  await mkdir(join(work, 'node_modules'));
  await symlink(root, join(work, 'node_modules', 'loyalty-partner-sdk'), 'dir');
  // The CJS build gets the app with top-level await wrapped, as a CommonJS app would write it.
  await writeFile(join(work, 'kiosk.mjs'), KIOSK_APP);
  await writeFile(
    join(work, 'kiosk.cjs.js'),
    `(async () => {${KIOSK_APP.replace(/^import (.*) from (.*);$/gm, 'const $1 = require($2);')}})().catch((err) => { console.error(err); process.exit(1); });`,
  );
  emulator = createEmulator();
  ({ url } = await emulator.listen());
});

afterAll(async () => {
  await emulator?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

async function runKiosk(bundle: string) {
  const merchant = emulator.createMerchant();
  const dir = join(work, `outbox-${merchant.tenantId}`);
  const { stdout } = await run(
    process.execPath,
    [bundle, url, merchant.apiKey, merchant.signingSecret, dir],
    {
      timeout: 20_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
}

describe('a kiosk app bundled into one file with esbuild', () => {
  it('runs as one ESM file with the createRequire banner the README gives, sends, and exits 0', async () => {
    const outfile = join(work, 'kiosk.bundle.mjs');
    await build({
      entryPoints: [join(work, 'kiosk.mjs')],
      absWorkingDir: work,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outfile,
      logLevel: 'silent',
      // undici require()s Node built-ins; in an ESM bundle esbuild can only forward those to a real require.
      banner: {
        js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
      },
    });
    expect(await runKiosk(outfile)).toEqual({ delivered: 1, pending: 0, dead: 0 });
  });

  it('runs as one CommonJS file, sends, and exits 0', async () => {
    const outfile = join(work, 'kiosk.bundle.cjs');
    await build({
      entryPoints: [join(work, 'kiosk.cjs.js')],
      absWorkingDir: work,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile,
      logLevel: 'silent',
    });
    expect(await runKiosk(outfile)).toEqual({ delivered: 1, pending: 0, dead: 0 });
  });
});
