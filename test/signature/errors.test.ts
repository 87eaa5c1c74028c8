import { LoyaltyError } from 'loyalty-partner-sdk';
import { SignatureVerificationError } from 'loyalty-partner-sdk/signature';

type SignatureVerificationReason = SignatureVerificationError['reason'];

import { describe, expect, it } from 'vitest';

const CODES: Record<SignatureVerificationReason, 'INVALID_SIGNATURE' | 'SIGNATURE_EXPIRED'> = {
  missing_header: 'INVALID_SIGNATURE',
  malformed_header: 'INVALID_SIGNATURE',
  no_match: 'INVALID_SIGNATURE',
  no_secret: 'INVALID_SIGNATURE',
  timestamp_too_old: 'SIGNATURE_EXPIRED',
  timestamp_in_future: 'SIGNATURE_EXPIRED',
};

describe('SignatureVerificationError', () => {
  it.each(Object.entries(CODES))('gives the reason %s the code %s', (reason, code) => {
    expect(new SignatureVerificationError(reason as SignatureVerificationReason, 'm').code).toBe(code);
  });

  it('is an Error and a LoyaltyError with its own name, so one instanceof catches every SDK error', () => {
    const error = new SignatureVerificationError('no_match', 'No v1 signature matched');
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(LoyaltyError);
    expect(error.name).toBe('SignatureVerificationError');
    expect(String(error)).toBe('SignatureVerificationError: No v1 signature matched');
  });

  it('serialises to exactly its name, code, reason and message', () => {
    const cause = new Error('the cause stays out of JSON');
    const error = new SignatureVerificationError('timestamp_too_old', 'too old', { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.parse(JSON.stringify(error))).toStrictEqual({
      name: 'SignatureVerificationError',
      code: 'SIGNATURE_EXPIRED',
      reason: 'timestamp_too_old',
      message: 'too old',
    });
  });
});
