import { correlationIdOf, errorResponse, type WebhookErrorCode } from 'loyalty-partner-sdk/webhooks';
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
    const statuses: Record<WebhookErrorCode, number> = {
      INVALID_SIGNATURE: 401,
      SIGNATURE_EXPIRED: 401,
      INVALID_PAYLOAD: 400,
      EVENT_IN_PROGRESS: 503,
      HANDLER_FAILED: 500,
      HANDLER_TIMEOUT: 503,
      SECRETS_UNAVAILABLE: 503,
      INBOX_UNAVAILABLE: 503,
      SCHEMA_VERSION_UNSUPPORTED: 503,
      RECEIVER_FAILED: 500,
      PAYLOAD_TOO_LARGE: 413,
      REQUEST_TIMEOUT: 408,
      RAW_BODY_UNAVAILABLE: 500,
      METHOD_NOT_ALLOWED: 405,
    };
    for (const [code, status] of Object.entries(statuses)) {
      expect(errorResponse(code as WebhookErrorCode, 'm', 'c').status).toBe(status);
    }
  });
});
