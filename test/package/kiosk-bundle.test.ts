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
// its exports map) bundled plainly by esbuild (`--bundle --platform=node`, no banner) with the
// client and the file outbox, started as its own process, sending one event over real HTTP to the
// emulator. Needs `npm run build` (npm test runs it).
const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let work: string;
let emulator: Emulator;
let url: string;

const KIOSK_APP = `
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';

const [baseUrl, apiKey, signingSecret, dir] = process.argv.slice(2);
const warnings = [];
const logger = { debug() {}, info() {}, warn: (line) => warnings.push(line), error() {} };
const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret, logger });
const outbox = createOutbox({ client, store: fileStore(dir) });
await outbox.start();
await outbox.enqueue('BranchSynced', { externalBranchId: 'kiosk-branch', name: 'Kiosk 7', isActive: true });
const stats = await outbox.flush();
await outbox.close();
await client.close();
console.log(JSON.stringify({ delivered: stats.delivered, pending: stats.pending, dead: stats.dead, warnings }));
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
  const { warnings, ...stats } = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
  const received = emulator
    .events({ tenantId: merchant.tenantId })
    .map((record) => `${record.eventType} ${record.outcome}`);
  return { ...stats, received, warnings: warnings as Array<Record<string, string>> };
}

/** Bundles the kiosk app `entry` into one `format` file, as a kiosk's build would: its path. */
async function bundleKiosk(entry: string, format: 'esm' | 'cjs', outfile: string): Promise<string> {
  await build({
    entryPoints: [join(work, entry)],
    absWorkingDir: work,
    bundle: true,
    platform: 'node',
    format,
    target: 'node20',
    outfile: join(work, outfile),
    logLevel: 'silent',
  });
  return join(work, outfile);
}

const delivered = { delivered: 1, pending: 0, dead: 0, received: ['BranchSynced processed'] };

describe('a kiosk app bundled into one file with esbuild', () => {
  it('runs as one ESM file, with no banner, and delivers through fetch where undici cannot load, saying so once', async () => {
    const outfile = await bundleKiosk('kiosk.mjs', 'esm', 'kiosk.bundle.mjs');
    const { warnings, ...stats } = await runKiosk(outfile);
    expect(stats).toEqual(delivered);
    // undici require()s Node built-ins, which an ESM bundle cannot: the client said so once, and why.
    expect(warnings).toEqual([
      expect.objectContaining({
        event: 'loyalty.client.transport_fallback',
        reason: expect.stringContaining('node:'),
      }),
    ]);
  });

  it('runs as one CommonJS file, sends, and exits 0', async () => {
    const outfile = await bundleKiosk('kiosk.cjs.js', 'cjs', 'kiosk.bundle.cjs');
    expect(await runKiosk(outfile)).toEqual({ ...delivered, warnings: [] });
  });
});
