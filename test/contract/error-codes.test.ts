import { ERROR_CODES, type ErrorCode } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { errorCodeInfo, isErrorCode } from '../../src/contract/index.js';

// Sections 7.1 and 7.2 of the spec, transcribed: code | status.
const SPEC_CODES = `
MISSING_API_KEY 401
INVALID_API_KEY 401
INVALID_SIGNATURE 401
SIGNATURE_EXPIRED 401
INTEGRATION_NOT_CONNECTED 401
INTEGRATION_ALREADY_DISCONNECTED 401
INTEGRATION_PAUSED 503
MISSING_IDEMPOTENCY_KEY 400
UNKNOWN_EVENT_TYPE 400
INVALID_PAYLOAD 400
INVALID_REQUEST 400
EVENT_HANDLER_NOT_REGISTERED 503
WRONG_EVENT_DIRECTION 400
CUSTOMER_MAPPING_NOT_FOUND 400
BRANCH_MAPPING_NOT_FOUND 400
BRANCH_MAPPING_UNCONFIRMED 400
CUSTOMER_INACTIVE 400
MISSING_STAMP_CARD_ID 400
STAMP_CARD_NOT_FOUND 400
STAMP_CARD_INACTIVE 400
STAMP_CARD_FREE_ENTRY_ONLY 400
NO_ACTIVE_POINTS_PROGRAM 400
NO_ACTIVE_EARNING_METHOD 400
PARTNER_INVOICE_ALREADY_EARNED 400
SUBSCRIPTION_LAPSED 503
CONCURRENCY_CONFLICT 503
`
  .trim()
  .split('\n')
  .map((line) => {
    const [code, status] = line.split(' ');
    return [code as ErrorCode, Number(status)] as const;
  });

// Section 7.2: "the same event may be redelivered after the merchant fixes the setup".
const STATE_DEPENDENT: ErrorCode[] = [
  'BRANCH_MAPPING_UNCONFIRMED',
  'CUSTOMER_MAPPING_NOT_FOUND',
  'CUSTOMER_INACTIVE',
  'NO_ACTIVE_POINTS_PROGRAM',
  'STAMP_CARD_INACTIVE',
];

describe('ERROR_CODES', () => {
  it('holds exactly the codes of spec sections 7.1 and 7.2', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(SPEC_CODES.map(([code]) => code).sort());
  });

  it.each(SPEC_CODES)('answers %s with status %i', (code, status) => {
    expect(ERROR_CODES[code].status).toBe(status);
  });

  it('marks the 503 family, and only it, as retryable', () => {
    const retryable = SPEC_CODES.filter(([code]) => ERROR_CODES[code].retryable).map(([code]) => code);
    expect(retryable.sort()).toEqual(
      [
        'CONCURRENCY_CONFLICT',
        'EVENT_HANDLER_NOT_REGISTERED',
        'INTEGRATION_PAUSED',
        'SUBSCRIPTION_LAPSED',
      ].sort(),
    );
    for (const [code, status] of SPEC_CODES)
      expect(ERROR_CODES[code].action === 'retry').toBe(status === 503);
  });

  it.each(STATE_DEPENDENT)('lets %s be redelivered after the setup is fixed', (code) => {
    expect(ERROR_CODES[code].action).toBe('fix-setup');
  });

  it('tells the caller to stop on WRONG_EVENT_DIRECTION and on an invoice already earned', () => {
    expect(ERROR_CODES.WRONG_EVENT_DIRECTION.action).toBe('stop');
    expect(ERROR_CODES.PARTNER_INVOICE_ALREADY_EARNED.action).toBe('stop');
    expect(ERROR_CODES.STAMP_CARD_FREE_ENTRY_ONLY.action).toBe('stop');
  });

  it('sends a clock problem to the clock and a credential problem to re-authentication', () => {
    expect(ERROR_CODES.SIGNATURE_EXPIRED.action).toBe('check-clock');
    for (const code of [
      'MISSING_API_KEY',
      'INVALID_API_KEY',
      'INVALID_SIGNATURE',
      'INTEGRATION_ALREADY_DISCONNECTED',
    ] as const) {
      expect(ERROR_CODES[code].action).toBe('reauthenticate');
    }
  });

  it('marks the code reserved for the planned synchronous endpoints as planned', () => {
    expect(SPEC_CODES.filter(([code]) => 'planned' in ERROR_CODES[code]).map(([code]) => code)).toEqual([
      'MISSING_IDEMPOTENCY_KEY',
    ]);
  });

  it('recognises known codes and returns nothing for codes a newer service might add', () => {
    expect(isErrorCode('CONCURRENCY_CONFLICT')).toBe(true);
    expect(isErrorCode('hasOwnProperty')).toBe(false);
    expect(errorCodeInfo('RATE_LIMITED_SOMEDAY')).toBeUndefined();
    expect(errorCodeInfo(undefined)).toBeUndefined();
    expect(errorCodeInfo('INVALID_PAYLOAD')?.status).toBe(400);
  });
});
