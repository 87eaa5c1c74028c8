import { correlationIdOf, errorResponse, RECEIVER_ERROR_CODES } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('answers', () => {
  it('echo the delivery’s X-Correlation-Id', () => {
    expect(correlationIdOf(new Headers({ 'X-Correlation-Id': 'corr-1' }))).toBe('corr-1');
  });

  it('carry a fresh id when the delivery has none, or one unfit to echo into a header', () => {
    for (const headers of [
      {},
      { 'x-correlation-id': '' },
      { 'x-correlation-id': 'a b' },
      { 'x-correlation-id': 'x'.repeat(129) },
    ]) {
      expect(correlationIdOf(headers)).toMatch(UUID);
    }
    expect(correlationIdOf({})).not.toBe(correlationIdOf({}));
  });

  it('are the contract’s error envelope, as JSON, with the status of the code’s catalogue', () => {
    const answer = errorResponse('SIGNATURE_EXPIRED', 'too old', 'corr-1');
    expect(answer).toEqual({
      status: 401,
      headers: { 'content-type': 'application/json', 'x-correlation-id': 'corr-1' },
      body: '{"code":"SIGNATURE_EXPIRED","message":"too old","correlationId":"corr-1"}',
    });
    expect(errorResponse('INVALID_PAYLOAD', 'm', 'c').status).toBe(400);
    for (const [code, { status }] of Object.entries(RECEIVER_ERROR_CODES)) {
      expect(errorResponse(code as keyof typeof RECEIVER_ERROR_CODES, 'm', 'c').status).toBe(status);
    }
  });
});
