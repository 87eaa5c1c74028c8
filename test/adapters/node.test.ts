import { request as httpRequest } from 'node:http';
import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import { createNodeListener } from 'loyalty-partner-sdk/node';
import { describe, expect, it } from 'vitest';
import { ADAPTER_DEFAULTS } from '../../src/adapters/adapter-options.js';
import { outboundEvent, signedDelivery } from '../webhooks/support/deliveries.js';
import { describeConformance, post, recordingReceiver } from './conformance.js';
import { listen } from './support/targets.js';

describeConformance('createNodeListener on node:http', (receiver, options) =>
  listen(createNodeListener(receiver, options)),
);

/** Streams a body in chunks without Content-Length, and reports the answer. */
function sendChunked(url: string, headers: Record<string, string>, chunks: string[]) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      let body = '';
      res
        .setEncoding('utf8')
        .on('data', (part) => (body += part))
        .on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('createNodeListener', () => {
  it('stops at maxBodyBytes when a chunked body declares no length', async () => {
    const { receiver, seen } = recordingReceiver();
    const target = await listen(createNodeListener(receiver, { maxBodyBytes: 1024 }));
    try {
      const { headers } = signedDelivery('x');
      const answer = await sendChunked(
        target.url,
        headers,
        Array.from({ length: 4 }, () => 'y'.repeat(512)),
      );
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      expect(seen).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('reads a chunked body within the limit as one exact byte sequence', async () => {
    const { receiver, seen } = recordingReceiver();
    const target = await listen(createNodeListener(receiver));
    try {
      const { rawBody, headers } = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const middle = Math.floor(rawBody.length / 2);
      const answer = await sendChunked(target.url, headers, [
        rawBody.slice(0, middle),
        rawBody.slice(middle),
      ]);
      expect(answer.status).toBe(200);
      expect(seen).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('answers 500 RAW_BODY_UNAVAILABLE at once, instead of hanging, when the stream was read before it', async () => {
    const { receiver } = recordingReceiver();
    const listener = createNodeListener(receiver);
    const target = await listen((req, res) => {
      req.resume().on('end', () => listener(req, res));
    });
    try {
      const answer = await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')));
      expect([answer.status, answer.body.code]).toEqual([500, 'RAW_BODY_UNAVAILABLE']);
    } finally {
      await target.close();
    }
  });

  it('refuses, when created, something that is not a receiver or a bad maxBodyBytes', () => {
    const { receiver } = recordingReceiver();
    expect(() => createNodeListener({} as never)).toThrow(LoyaltyValidationError);
    expect(() => createNodeListener(receiver, { maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
    expect(ADAPTER_DEFAULTS.maxBodyBytes).toBe(1024 * 1024);
  });

  it('names every bad option at once: maxBodyBytes, bodyTimeoutMs and onError', () => {
    const { receiver } = recordingReceiver();
    const attempt = () =>
      createNodeListener(receiver, { maxBodyBytes: 1.5, bodyTimeoutMs: 0, onError: 'log' as never });
    expect(attempt).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        issues: [
          { path: 'maxBodyBytes', message: 'must be a whole number of bytes > 0' },
          { path: 'bodyTimeoutMs', message: 'must be a whole number of milliseconds from 1 to 2147483647' },
          { path: 'onError', message: 'must be a function' },
        ],
      }),
    );
    expect(ADAPTER_DEFAULTS.bodyTimeoutMs).toBe(10_000);
  });
});
