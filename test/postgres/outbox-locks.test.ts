import { describe, expect, it } from 'vitest';
import { keyLocks, lockKey } from '../../src/postgres/outbox-locks.js';

/*
 * The advisory-lock keys are shared by every process enqueueing on one schema, of this version and
 * of the one before it during a rolling deploy: the same causal key must give the same lock in
 * both, or two events that must keep their order could commit side by side. Pinned here.
 */
describe('outbox advisory-lock keys', () => {
  it('are the signed CRC-32 of the UTF-8 text, as every earlier version computed them', () => {
    expect(lockKey('default/Customer:c-1')).toBe(121433519);
    expect(lockKey('default/Invoice:inv-1')).toBe(-1566406951);
    expect(lockKey('merchant-7/Customer:عميل-٩')).toBe(1527129463);
  });

  it('are sorted, exclusive where a key is changed even when it is also needed', () => {
    const locks = keyLocks('default', {
      changes: ['Invoice:inv-1'],
      needs: ['Customer:c-1', 'Invoice:inv-1'],
    });
    expect(locks).toEqual({ ids: [-1566406951, 121433519], exclusive: [1, 0] });
  });
});
