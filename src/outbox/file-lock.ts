import { link, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kill, pid as ownPid } from 'node:process';
import { OutboxLockedError } from './errors.js';

const LOCK_FILE = 'outbox.lock';

/**
 * Takes the store directory's lock: a file holding the owner's pid, created exclusively. A lock
 * left by a process that no longer runs (killed, crashed, power cut) is taken over; one held by a
 * live process, this one included, is refused with `OutboxLockedError`. Returns the release.
 */
export async function acquireDirLock(dir: string): Promise<() => Promise<void>> {
  const path = join(dir, LOCK_FILE);
  for (let round = 0; round < 3; round++) {
    if (await createWithPid(path)) {
      await sweepLeftovers(dir);
      return () => unlink(path).catch(() => undefined);
    }
    const holder = await readPid(path);
    if (holder !== undefined && (holder === ownPid || isAlive(holder)))
      throw new OutboxLockedError(dir, holder);
    await takeOverStale(dir, path, holder);
  }
  throw new OutboxLockedError(dir, await readPid(path));
}

/**
 * Writes the pid to a private file, then links it in place: `link` fails if the lock exists and
 * never exposes a lock file without its pid, which a reader could mistake for a stale one.
 */
async function createWithPid(path: string): Promise<boolean> {
  const draft = `${path}.${ownPid}`;
  await writeFile(draft, `${ownPid}\n`);
  try {
    await link(draft, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links (FAT, some network mounts): exclusive create instead.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'ENOSYS') return createExclusive(path);
    throw err;
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

async function createExclusive(path: string): Promise<boolean> {
  try {
    await writeFile(path, `${ownPid}\n`, { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/**
 * Moves the stale lock aside rather than deleting it, then checks that what moved is the stale
 * lock: if another process took it over in between, its fresh lock goes back and we give way.
 */
async function takeOverStale(dir: string, path: string, stalePid: number | undefined): Promise<void> {
  const aside = `${path}.stale-${ownPid}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  const moved = await readPid(aside);
  if (moved !== stalePid && moved !== undefined && isAlive(moved)) {
    await rename(aside, path);
    throw new OutboxLockedError(dir, moved);
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

async function readPid(path: string): Promise<number | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text.trim(), 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
