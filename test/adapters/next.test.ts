import type { IncomingMessage } from 'node:http';
import { nextRouteHandler, pagesApiHandler } from 'loyalty-partner-sdk/next';
import { describe, expect, it } from 'vitest';
import { outboundEvent, signedDelivery } from '../webhooks/support/deliveries.js';
import { describeConformance, post, recordingReceiver } from './conformance.js';
import { bridged, direct, listen } from './support/targets.js';

// As a route with `export const runtime = 'edge'`: the Web build's receiver.
describeConformance(
  'nextRouteHandler driven with Request objects, Web-build receiver',
  (receiver, options) => direct(nextRouteHandler(receiver, options)),
  'web',
);

describeConformance(
  'nextRouteHandler behind node:http, streaming the body',
  (receiver, options) => bridged(nextRouteHandler(receiver, options)),
  'node',
  'reset',
);

// What Next.js does for a pages/api route with `config = { api: { bodyParser: false } }`: it
// calls the handler with the untouched request and response.
describeConformance('pagesApiHandler on node:http (bodyParser: false)', (receiver, options) =>
  listen((req, res) => void pagesApiHandler(receiver, options)(req, res)),
);

/** What Next.js does by default: read the whole body, parse it, and leave the object as req.body. */
async function nextBodyParser(req: IncomingMessage & { body?: unknown }): Promise<void> {
  let text = '';
  for await (const chunk of req) text += chunk;
  req.body = JSON.parse(text);
}

describe('pagesApiHandler', () => {
  it('answers 500 RAW_BODY_UNAVAILABLE at once, naming the config to export, when Next.js parsed the body', async () => {
    const { receiver, seen } = recordingReceiver();
    const handler = pagesApiHandler(receiver);
    const target = await listen(async (req, res) => {
      await nextBodyParser(req);
      await handler(req, res);
    });
    try {
      const answer = await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')));
      expect([answer.status, answer.body.code]).toEqual([500, 'RAW_BODY_UNAVAILABLE']);
      expect(answer.body.message).toContain('export const config = { api: { bodyParser: false } }');
    } finally {
      await target.close();
    }
    expect(seen).toEqual([]);
  });
});

describe('nextRouteHandler', () => {
  it('answers 500 RAW_BODY_UNAVAILABLE when the Request body was already read', async () => {
    const { receiver } = recordingReceiver();
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
    const request = new Request('http://receiver.test/', {
      method: 'POST',
      headers: delivery.headers,
      body: delivery.rawBody,
    });
    await request.json();
    const response = await nextRouteHandler(receiver)(request);
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: 'RAW_BODY_UNAVAILABLE' });
  });
});
