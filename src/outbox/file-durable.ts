import { type FileHandle, lstat, mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { platform } from 'node:process';
import { codeOf } from '../internal/code-of.js';

/** Writes every byte, whatever the kernel accepts per call. */
export async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** Replaces `path` atomically and durably: a crash leaves the old or the new file, never a mix. */
export async function replaceFileDurably(path: string, chunks: Iterable<Uint8Array>): Promise<void> {
  const temporary = `${path}.tmp`;
  await syncClosing(await open(temporary, 'w'), async (handle) => {
    for (const chunk of chunks) await writeAll(handle, chunk);
  });
  await rename(temporary, path);
  // The rename is durable once its directory entry is (NTFS journals it itself).
  if (platform !== 'win32') await syncClosing(await open(dirname(path), 'r'));
}

/** Writes with `handle` (if asked), syncs it, and closes it whatever happens. */
async function syncClosing(handle: FileHandle, write?: (handle: FileHandle) => Promise<void>): Promise<void> {
  try {
    await write?.(handle);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The file's bytes, or none when it does not exist yet. */
export async function readIfExists(path: string): Promise<Uint8Array> {
  try {
    return await readFile(path);
  } catch (err) {
    if (notFound(err)) return new Uint8Array(0);
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
    if (codeOf(err) !== 'ENOENT') throw err;
    let missing = dir;
    while (dirname(missing) !== missing && (await lstat(dirname(missing)).then(() => false, notFound))) {
      missing = dirname(missing);
    }
    await mkdir(missing);
    throw err;
  }
}

/** `true` (the path is missing) for ENOENT; any other error means something is there. */
function notFound(err: unknown): boolean {
  return codeOf(err) === 'ENOENT';
}
