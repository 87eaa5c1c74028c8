import { crc32 } from '../outbox/crc32.js';
import type { CausalKeys } from '../outbox/store.js';

const encoder = new TextEncoder();

/** A 32-bit advisory-lock key, the same in every process (`| 0`: Postgres takes a signed int4). */
export const lockKey = (text: string): number => crc32(encoder.encode(text)) | 0;

/**
 * The advisory locks an enqueue takes before its row gets a `seq`: one per causal key of the
 * event, exclusive for keys it changes and shared for keys it only needs, so two events that
 * must keep their order (one changes what the other changes or needs) cannot both be inside
 * uncommitted transactions, and two that need the same branch do not wait for each other.
 * Sorted by key: every transaction takes its locks in one global order, so two enqueues never
 * deadlock each other. A hash collision only makes two unrelated events wait; it never lets two
 * related ones pass.
 */
export function keyLocks(tenantId: string, keys: CausalKeys): { ids: number[]; exclusive: number[] } {
  const locks = new Map<number, boolean>();
  for (const key of keys.changes) locks.set(lockKey(`${tenantId}/${key}`), true);
  for (const key of keys.needs) {
    const id = lockKey(`${tenantId}/${key}`);
    if (!locks.has(id)) locks.set(id, false);
  }
  const ids = [...locks.keys()].sort((a, b) => a - b);
  // 1 exclusive, 0 shared: integers, which every driver sends as an array alike.
  return { ids, exclusive: ids.map((id) => (locks.get(id) ? 1 : 0)) };
}
