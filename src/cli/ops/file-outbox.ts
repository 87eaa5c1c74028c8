import { appendFile, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { platform } from 'node:process';
import { OutboxLockedError, OutboxStoreError } from '../../outbox/errors.js';
import { fileStore } from '../../outbox/file-store.js';
import { LocalQueue } from '../../outbox/local-queue.js';
import { onFile, UsageError } from '../exit-codes.js';
import type { AuditEntry, AuditTrail } from './audit.js';
import { type OpsOutboxStore, StoreUnavailable } from './ops-stores.js';

/** The audit trail of a file outbox: one JSON line per action, beside the journal. */
const AUDIT_FILE = 'audit.jsonl';

/**
 * A file outbox opened by the CLI while no POS process holds its lock (a held one is refused with
 * the holder's pid). Changes go to the journal as the outbox writes them, seen by its next start.
 */
export async function openFileOutbox(
  dir: string,
  options: { keyFile?: string | undefined } = {},
): Promise<{ store: OpsOutboxStore; audit: AuditTrail; close(): Promise<void> }> {
  const encryptionKey = options.keyFile === undefined ? undefined : await readKeyFile(options.keyFile);
  const queue = new LocalQueue(fileStore(dir, { encryptionKey }), () => performance.now());
  try {
    await queue.open();
  } catch (err) {
    if (err instanceof OutboxStoreError && err.code === 'ENCRYPTION_KEY_MISMATCH')
      throw new UsageError(
        `${err.message}${options.keyFile === undefined ? ' (pass --key-file <path>)' : ` (not the key in ${options.keyFile})`}; no file was changed`,
      );
    if (err instanceof OutboxLockedError)
      throw new StoreUnavailable(
        `${err.message}: a file outbox is opened by one process at a time; stop it first, or act from it (outbox.list, redeliver, discard)`,
      );
    throw err;
  }
  // The outbox's own in-memory view of the journal; changes are written through to it.
  const view: OpsOutboxStore = {
    get: async (eventId) => queue.get(eventId),
    list: async (state, filter = {}) => queue.list(state, filter).slice(0, filter.limit ?? 1000),
    counts: async () => queue.counts(),
    countsByTenant: () => queue.countsByTenant(),
    update: (eventId, patch) => queue.update(eventId, patch),
    remove: (eventIds) => queue.remove(eventIds),
  };
  const auditPath = join(dir, AUDIT_FILE);
  const audit: AuditTrail = {
    async record(entry) {
      await appendFile(auditPath, `${JSON.stringify({ at: Date.now(), ...entry })}\n`, { mode: 0o600 });
    },
    async recent(limit) {
      const text = await readFile(auditPath, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .slice(-limit)
        .reverse()
        .map((line) => JSON.parse(line) as AuditEntry);
    },
  };
  return { store: view, audit, close: () => queue.close() };
}

/** A key file holds 32 bytes of key: as base64 text (one line), or the bytes themselves. */
const KEY_BYTES = 32;

/**
 * The key of an encrypted file outbox, from `--key-file`, which only its owner may read (as an SSH
 * key: a key others can read protects nothing). Its content is never printed.
 */
export async function readKeyFile(path: string): Promise<Uint8Array | string> {
  const bytes = await onFile(path, async () => {
    const info = await stat(path);
    // Windows has no POSIX modes: its ACLs are the administrator's to set.
    if (platform !== 'win32' && (info.mode & 0o077) !== 0)
      throw new UsageError(
        `${path} is readable or writable by others (mode ${(info.mode & 0o777).toString(8)}): run chmod 600 ${path}`,
      );
    if (info.size > 4096) throw new UsageError(`${path} is too large for a key file: is it the right file?`);
    return readFile(path);
  });
  if (bytes.length === KEY_BYTES) return new Uint8Array(bytes);
  const text = bytes.toString('utf8').trim();
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(text) && Buffer.from(text, 'base64').length === KEY_BYTES) return text;
  throw new UsageError(
    `${path} holds no key: put the base64 of 32 bytes in it (e.g. openssl rand -base64 32), or the 32 bytes themselves`,
  );
}
