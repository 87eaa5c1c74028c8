import { Hono } from 'hono';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { describe, expect, it } from 'vitest';
import { outboundEvent, signedDelivery } from '../webhooks/support/deliveries.js';
import { describeConformance, post, recordingReceiver } from './conformance.js';
import { bridged, direct } from './support/targets.js';

// As on Workers, Deno Deploy or Vercel's edge: the Web build's receiver, verifying with Web Crypto.
describeConformance(
  'fetchHandler driven with Request objects, Web-build receiver',
  (receiver, options) => direct(fetchHandler(receiver, options)),
  'web',
);

describeConformance(
  'fetchHandler in a Hono app, behind node:http',
  (receiver, options) => {
    const onWebhook = fetchHandler(receiver, options);
    const app = new Hono();
    app.all('/loyalty/webhooks', (c) => onWebhook(c.req.raw));
    return bridged((request) => Promise.resolve(app.fetch(request)));
  },
  'node',
  'reset',
);

describe('fetchHandler', () => {
  it('stops reading a streamed body at maxBodyBytes, without a Content-Length to go by', async () => {
    const { receiver, seen } = recordingReceiver();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512).fill(120));
      },
    });
    const { headers } = signedDelivery('x');
    const request = new Request('http://receiver.test/', {
      method: 'POST',
      headers,
      body,
      duplex: 'half',
    } as RequestInit);
    const response = await fetchHandler(receiver, { maxBodyBytes: 2048 })(request);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(pulled).toBeLessThan(10); // an endless body: it stopped soon after the limit
    expect(seen).toEqual([]);
  });

  it('answers 500 RAW_BODY_UNAVAILABLE to a Request whose body a framework already read', async () => {
    const { receiver } = recordingReceiver();
    const onWebhook = fetchHandler(receiver);
    const app = new Hono();
    app.post('/loyalty/webhooks', async (c) => {
      await c.req.raw.text();
      return onWebhook(c.req.raw);
    });
    const answer = await post(
      {
        url: 'http://receiver.test/loyalty/webhooks',
        send: async (r) => app.fetch(r),
        close: async () => {},
      },
      signedDelivery(outboundEvent('IntegrationStatusChanged')),
    );
    expect([answer.status, answer.body.code]).toEqual([500, 'RAW_BODY_UNAVAILABLE']);
  });
});
