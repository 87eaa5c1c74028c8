import { crc32 } from '../outbox/crc32.js';
import type { CausalKeys } from '../outbox/store.js';

/** A 32-bit advisory-lock key, the same in every process (`| 0`: Postgres takes a signed int4). */
export const lockKey = (text: string): number => crc32(text) | 0;

/**
 * The advisory locks an enqueue takes before its row gets a `seq`, exclusive for keys it changes,
 * shared for keys it needs: two events that must keep their order are never both uncommitted.
 * Sorted, so enqueues never deadlock; a hash collision only makes two unrelated events wait.
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
