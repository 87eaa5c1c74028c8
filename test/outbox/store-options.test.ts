import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import { fileStore, memoryStore } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';

describe('store options', () => {
  it('refuses every bad limit at once with INVALID_OPTIONS, in memoryStore and fileStore alike', () => {
    for (const create of [
      () => memoryStore({ maxEvents: 0, maxBytes: 1.5 }),
      () => fileStore('/tmp/never-created', { maxEvents: 0, maxBytes: 1.5 }),
    ]) {
      expect(create).toThrow(LoyaltyValidationError);
      expect(create).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          issues: [
            { path: 'maxEvents', message: 'must be a whole number > 0' },
            { path: 'maxBytes', message: 'must be a whole number of bytes > 0' },
          ],
        }),
      );
    }
  });
});
