import { newEventId } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { uuidV4, uuidV7 } from '../../src/contract/uuid.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('event ids (UUID version 7)', () => {
  it('carry the time in their first 48 bits, and sort in creation order within one millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => newEventId());
    for (const id of ids) expect(id).toMatch(V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    // The random tails too: bytes come from a pool refilled every 256 ids, never handed out twice.
    expect(new Set(ids.map((id) => id.slice(-12))).size).toBe(ids.length);
    const ms = Number.parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
  });

  it('keep creation order when the clock steps back', () => {
    const later = uuidV7(Date.UTC(2030, 0, 1));
    expect(uuidV7(Date.UTC(2029, 0, 1)) > later).toBe(true);
  });
});

describe('idempotency keys (UUID version 4)', () => {
  it('are random version 4 UUIDs', () => {
    const keys = Array.from({ length: 1000 }, uuidV4);
    for (const key of keys) expect(key).toMatch(V4);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
