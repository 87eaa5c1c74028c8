import { lstat, mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { platform } from 'node:process';

/** Makes a created or renamed file's directory entry durable (NTFS journals it itself). */
export async function syncDirectory(dir: string): Promise<void> {
  if (platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes every byte, whatever the kernel accepts per call. */
export async function writeAll(
  handle: import('node:fs/promises').FileHandle,
  bytes: Uint8Array,
): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** Replaces `path` atomically and durably: a crash leaves the old or the new file, never a mix. */
export async function replaceFileDurably(
  dir: string,
  path: string,
  chunks: Iterable<Uint8Array>,
): Promise<void> {
  const temporary = `${path}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    for (const chunk of chunks) await writeAll(handle, chunk);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
  await syncDirectory(dir);
}

/** The file's bytes, or none when it does not exist yet. */
export async function readIfExists(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Uint8Array(0);
    throw err;
  }
}

/** Compaction writes in chunks of about this size rather than one syscall per record. */
const CHUNK_BYTES = 1024 * 1024;

/** Groups small frames into chunks of about 1 MiB. */
export function* chunked(frames: readonly Uint8Array[]): Generator<Uint8Array> {
  let group: Uint8Array[] = [];
  let size = 0;
  for (const frame of frames) {
    group.push(frame);
    size += frame.length;
    if (size >= CHUNK_BYTES) {
      yield Buffer.concat(group);
      group = [];
      size = 0;
    }
  }
  if (group.length > 0) yield Buffer.concat(group);
}

/**
 * Creates `dir` and its parents. A recursive `mkdir` answers `ENOENT` whatever the reason, so the
 * first missing level is then created alone, for its real error (`EROFS`, ...).
 */
export async function makeDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let missing = dir;
    while (dirname(missing) !== missing && (await lstat(dirname(missing)).then(() => false, notFound))) {
      missing = dirname(missing);
    }
    await mkdir(missing);
    throw err;
  }
}

/** `true` (the path is missing) for ENOENT; any other error means something is there. */
function notFound(err: NodeJS.ErrnoException): boolean {
  return err.code === 'ENOENT';
}
