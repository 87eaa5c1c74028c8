import {
  createEnvelope,
  EVENT_TYPES,
  type InboundEventType,
  LoyaltyValidationError,
} from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { INBOUND_EVENT_TYPES, parsePayload } from '../../src/contract/index.js';

describe('strings the contract requires', () => {
  it.each([' ', '   ', '\t', '\n '])('refuse a phone of only whitespace (%j)', (phone) => {
    expect(() => createEnvelope('CustomerSynced', { externalCustomerId: 'c-1', phone })).toThrow(
      expect.objectContaining({
        code: 'INVALID_PAYLOAD',
        issues: [{ path: 'payload.phone', message: 'must not be blank (whitespace only)' }],
      }),
    );
  });

  it('refuse blank ids and names, but keep text with spaces around it as it is', () => {
    expect(() =>
      parsePayload('BranchSynced', { externalBranchId: ' ', name: 'Olaya', isActive: true }),
    ).toThrow(LoyaltyValidationError);
    expect(
      parsePayload('BranchSynced', { externalBranchId: 'b-1', name: ' Olaya ', isActive: true }).name,
    ).toBe(' Olaya ');
  });
});

describe('validation messages', () => {
  /** Every payload turned bad four ways: empty, wrong types, blank strings, not an object. */
  function badInputs(type: InboundEventType): unknown[] {
    const sample = samplePayload(type) as Record<string, unknown>;
    const each = (value: unknown) => Object.fromEntries(Object.keys(sample).map((key) => [key, value]));
    return [{}, each(42), each(' '), each(null), 'text', { ...sample, unknownField: 1 }];
  }

  it('never end with a doubled period, nor hold one, for any event type', () => {
    const messages: string[] = [];
    for (const type of INBOUND_EVENT_TYPES) {
      for (const input of badInputs(type)) {
        try {
          parsePayload(type, input);
        } catch (err) {
          messages.push(
            (err as Error).message,
            ...(err as LoyaltyValidationError).issues.map((i) => i.message),
          );
        }
      }
    }
    expect(messages.length).toBeGreaterThan(INBOUND_EVENT_TYPES.length * 5);
    for (const message of messages) expect(message).not.toMatch(/\.\.|\.\s*$/);
    expect(Object.keys(EVENT_TYPES).length).toBe(16);
  });
});
