import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createOutbox, fileStore, OutboxStoreError } from 'loyalty-partner-sdk/outbox';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { bundleSdk } from '../support/bundle-sdk.js';
import { collectOutput } from '../support/child-lines.js';
import { REQUIRE_SERVERS_VARIABLE, serversRequired } from '../support/real-servers.js';
import { scriptedSender } from './fixtures/scripted-sender.js';

// Read-only and non-writable directories, for real: a read-only tmpfs mount, and the outbox run
// in a child process as the unprivileged `nobody`. Both need root (tests run as root here).
// Without it the tests are skipped, loudly, unless `.ci/run` demands every real check
// (LOYALTY_REQUIRE_REAL_SERVERS=1): then they fail, as a missing server does.
const execFileAsync = promisify(execFile);
const NOBODY = { uid: 65534, gid: 65534 };

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outbox-dir-'));
  await chmod(work, 0o755); // `nobody` must reach the bundle and the directories inside
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** Skips (or, under `.ci/run`, fails) a test that needs what this machine does not allow. */
function unavailable(ctx: TestContext, what: string): void {
  const why = `${what}: these checks of EROFS and EACCES need root`;
  if (serversRequired()) throw new Error(`${why}, and ${REQUIRE_SERVERS_VARIABLE}=1`);
  console.warn(`\n!!! OUTBOX DIRECTORY TEST DID NOT RUN: ${why}.\n`);
  ctx.skip();
}

/** What `start()` rejected with, as plain fields. */
async function startError(dir: string): Promise<Record<string, unknown>> {
  const outbox = createOutbox({ client: scriptedSender().sender, store: fileStore(dir) });
  const err = await outbox.start().then(
    () => undefined,
    (error: unknown) => error,
  );
  await outbox.close();
  expect(err).toBeInstanceOf(OutboxStoreError);
  const { name, code, errno, message } = err as OutboxStoreError;
  return { name, code, errno, dir: (err as OutboxStoreError).dir, message };
}

describe('start() on a read-only file system', () => {
  it('rejects with an OutboxStoreError naming the directory and the fix (EROFS)', async (ctx) => {
    const mountpoint = join(work, 'read-only');
    await mkdir(mountpoint);
    const mounted = await execFileAsync('mount', [
      '-t',
      'tmpfs',
      '-o',
      'ro,size=1m',
      'tmpfs',
      mountpoint,
    ]).then(
      () => true,
      (err: unknown) => {
        unavailable(ctx, `mount -t tmpfs -o ro refused (${(err as Error).message.split('\n')[0]})`);
        return false;
      },
    );
    if (!mounted) return;
    try {
      for (const dir of [mountpoint, join(mountpoint, 'outbox')]) {
        const err = await startError(dir);
        expect(err).toMatchObject({
          name: 'OutboxStoreError',
          code: 'OUTBOX_STORE_FAILED',
          errno: 'EROFS',
          dir,
        });
        expect(err.message).toContain(dir);
        expect(err.message).toContain('read-only file system; give fileStore a directory on a writable disk');
      }
    } finally {
      await execFileAsync('umount', [mountpoint]);
    }
  });
});

describe('start() as a user who may not write the directory', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = join(work, 'sdk.mjs');
    await bundleSdk(bundle, { 'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore'] });
    await chmod(bundle, 0o644);
  });

  /** Runs `start()` on `dir` in a child process as `nobody`; what it rejected with. */
  async function startAsNobody(dir: string): Promise<Record<string, unknown>> {
    const script = `
      const { createOutbox, fileStore } = await import(process.argv[1]);
      const sender = { sendEnvelope: async () => ({ status: 200, correlationId: 'c', attempts: 1 }) };
      const outbox = createOutbox({ client: sender, store: fileStore(process.argv[2]) });
      const err = await outbox.start().then(() => ({ started: true }), (e) => e);
      await outbox.close();
      const { name, code, errno, dir, message } = err;
      console.log(JSON.stringify({ uid: process.getuid(), name, code, errno, dir, message }));`;
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, pathToFileURL(bundle).href, dir],
      {
        ...NOBODY,
        cwd: work,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output = collectOutput(child);
    const [status] = (await once(child, 'close')) as [number | null];
    if (status !== 0) throw new Error(`child exited ${status}: ${output.stderr()}`);
    return JSON.parse(output.stdout()) as Record<string, unknown>;
  }

  it('rejects with an OutboxStoreError naming the directory and the fix (EACCES)', async (ctx) => {
    if (process.getuid?.() !== 0) return unavailable(ctx, 'not root, so no child can run as nobody');
    const locked = join(work, 'owned-by-root');
    await mkdir(locked, { mode: 0o755 });
    for (const dir of [locked, join(locked, 'outbox')]) {
      const err = await startAsNobody(dir);
      expect(err).toMatchObject({
        uid: NOBODY.uid,
        name: 'OutboxStoreError',
        code: 'OUTBOX_STORE_FAILED',
        errno: 'EACCES',
        dir,
      });
      expect(err.message).toContain(dir);
      expect(err.message).toContain('not writable by this process; grant it write permission');
    }
  });
});
