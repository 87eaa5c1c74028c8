import { randomUUID } from 'node:crypto';
import { link, readdir, readFile, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kill, pid as ownPid } from 'node:process';
import { codeOf } from '../internal/code-of.js';
import { OutboxLockedError } from './errors.js';

const LOCK_FILE = 'outbox.lock';
/** A holder touches its lock this often; a lock untouched for `STALE_MS` is abandoned. */
const HEARTBEAT_MS = 2_000;
const STALE_MS = 10_000;
/** Lock files this process holds, so a second store here is refused whatever its pid says. */
const held = new Set<string>();

/**
 * Takes the store directory's lock, a lease (Node has no `flock` without native code): the file
 * holds the owner's pid and a token and is touched every 2 s. It is taken over when no live owner
 * can hold it: our own pid not held here, a dead pid, or untouched for 10 s. Returns the release.
 */
export async function acquireDirLock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  if (held.has(path)) throw new OutboxLockedError(dir, ownPid);
  const token = randomUUID();
  for (let round = 0; round < 3; round++) {
    if (await createLock(path, token)) return hold(dir, path, token);
    const holder = await readLock(path);
    if (holder && !(await abandoned(path, holder))) throw new OutboxLockedError(dir, holder.pid);
    await takeOverStale(dir, path, holder?.token);
  }
  throw new OutboxLockedError(dir, (await readLock(path))?.pid);
}

async function hold(dir: string, path: string, token: string): Promise<() => Promise<void>> {
  held.add(path);
  await sweepLeftovers(dir);
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref?.();
  return async () => {
    clearInterval(heartbeat);
    held.delete(path);
    if ((await readLock(path))?.token === token) await unlink(path).catch(() => undefined);
  };
}

async function abandoned(path: string, holder: { pid: number | undefined }): Promise<boolean> {
  if (holder.pid === undefined || holder.pid === ownPid || !isAlive(holder.pid)) return true;
  const touched = await stat(path).catch(() => undefined);
  return Date.now() - (touched?.mtimeMs ?? 0) > STALE_MS;
}

/**
 * Writes the lock to a private file, then links it in place: `link` fails if the lock exists and
 * never exposes a lock file without its content, which a reader could mistake for a stale one.
 */
async function createLock(path: string, token: string): Promise<boolean> {
  const content = `${ownPid}\n${token}\n`;
  const draft = `${path}.${ownPid}`;
  await writeFile(draft, content);
  try {
    await link(draft, path).catch(async (err: unknown) => {
      // File systems without hard links (FAT, some network mounts): exclusive create instead.
      if (!['EPERM', 'ENOTSUP', 'ENOSYS'].includes(codeOf(err))) throw err;
      await writeFile(path, content, { flag: 'wx' });
    });
    return true;
  } catch (err) {
    if (codeOf(err) === 'EEXIST') return false;
    throw err;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/**
 * Moves the stale lock aside rather than deleting it, then checks that what moved is the lock
 * judged stale: if another process took it over in between, its fresh lock goes back.
 */
async function takeOverStale(dir: string, path: string, staleToken: string | undefined): Promise<void> {
  const aside = `${path}.stale-${ownPid}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if (codeOf(err) === 'ENOENT') return;
    throw err;
  }
  const moved = await readLock(aside);
  if (moved && moved.token !== staleToken) {
    await rename(aside, path);
    throw new OutboxLockedError(dir, moved.pid);
  }
  await unlink(aside).catch(() => undefined);
}

/** Drafts and set-aside locks of processes killed halfway through taking the lock. */
async function sweepLeftovers(dir: string): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const pid = /^outbox\.lock\.(?:stale-)?(\d+)$/.exec(name)?.[1];
    if (pid !== undefined && Number(pid) !== ownPid && !isAlive(Number(pid))) {
      await unlink(join(dir, name)).catch(() => undefined);
    }
  }
}

async function readLock(
  path: string,
): Promise<{ pid: number | undefined; token: string | undefined } | undefined> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const [pidText = '', token] = text.split('\n');
  const pid = Number.parseInt(pidText.trim(), 10);
  return { pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined, token: token?.trim() || undefined };
}

function isAlive(pid: number): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return codeOf(err) === 'EPERM';
  }
}
