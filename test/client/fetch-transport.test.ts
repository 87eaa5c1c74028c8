import { LoyaltyClient, LoyaltyNetworkError } from 'loyalty-partner-sdk';
import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SDK_VERSION } from '../../src/contract/sdk-version.js';
// The Web build's entry (what browsers, kiosks and edge runtimes resolve `loyalty-partner-sdk` to).
import { LoyaltyClient as WebLoyaltyClient } from '../../src/index.js';
import { API_KEY, invoice, SECRET } from './support/client-fixture.js';
import { verifyByHand } from './support/scripted-server.js';

const BASE = 'https://loyalty.test';
const EVENTS = `${BASE}/api/partner/v1/events`;

interface Seen {
  body: Buffer;
  headers: Headers;
}
const seen: Seen[] = [];
const mock = setupServer();

beforeAll(() => mock.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  mock.resetHandlers();
  seen.length = 0;
});
afterAll(() => mock.close());

/** An msw handler for POST /events that records each attempt and answers with `answers[n]` (the last one repeats). */
function events(...answers: (() => Response)[]) {
  mock.use(
    http.post(EVENTS, async ({ request }) => {
      seen.push({ body: Buffer.from(await request.arrayBuffer()), headers: request.headers });
      return answers[Math.min(seen.length, answers.length) - 1]!();
    }),
  );
}

const accepted = () => HttpResponse.json({ ok: true }, { headers: { 'x-correlation-id': 'corr-msw' } });
const paused = () =>
  HttpResponse.json({ code: 'INTEGRATION_PAUSED', message: 'paused', correlationId: 'c' }, { status: 503 });

const options = {
  baseUrl: BASE,
  apiKey: API_KEY,
  signingSecret: SECRET,
  retry: { baseDelayMs: 1, maxDelayMs: 2 },
};

describe('the fetch transport (fetch option)', () => {
  it('posts the signed envelope through the given fetch', async () => {
    events(accepted);
    const client = new LoyaltyClient({ ...options, fetch: (input, init) => fetch(input, init) });
    const result = await client.send('InvoiceEarned', invoice());

    expect(result).toMatchObject({ status: 200, correlationId: 'corr-msw', attempts: 1, body: { ok: true } });
    const [request] = seen;
    expect(request?.headers.get('x-api-key')).toBe(API_KEY);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(verifyByHand(request!.body, request?.headers.get('x-signature') ?? undefined, SECRET)).toBeTypeOf(
      'number',
    );
    expect(JSON.parse(request!.body.toString()).eventId).toBe(result.eventId);
    await client.close();
  });

  it('retries a 503 and a network error with the same bytes and a fresh valid signature', async () => {
    events(paused, () => HttpResponse.error(), accepted);
    const client = new LoyaltyClient({ ...options, fetch: (input, init) => fetch(input, init) });
    const result = await client.send('InvoiceEarned', invoice());

    expect(result.attempts).toBe(3);
    expect(seen.every((s) => s.body.equals(seen[0]!.body))).toBe(true);
    for (const s of seen)
      expect(verifyByHand(s.body, s.headers.get('x-signature') ?? undefined, SECRET)).toBeTypeOf('number');
  });

  it('aborts an attempt with no answer within timeoutMs and retries it as a TIMEOUT', async () => {
    let attempts = 0;
    mock.use(
      http.post(EVENTS, async () => {
        attempts += 1;
        if (attempts === 1) await delay('infinite');
        return accepted();
      }),
    );
    const retries: string[] = [];
    const client = new LoyaltyClient({
      ...options,
      timeoutMs: 100,
      hooks: { onRetry: (e) => void retries.push(e.code) },
      fetch: (input, init) => fetch(input, init),
    });
    const result = await client.send('InvoiceEarned', invoice());

    expect(result.attempts).toBe(2);
    expect(retries).toEqual(['TIMEOUT']);
  });

  it('gives up on network errors with a retryable LoyaltyNetworkError', async () => {
    events(() => HttpResponse.error());
    const client = new LoyaltyClient({
      ...options,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      fetch: (i, o) => fetch(i, o),
    });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LoyaltyNetworkError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', attempts: 2, retryable: true });
  });
});

describe('the Web build client', () => {
  it('sends through globalThis.fetch and signs with the portable HMAC', async () => {
    events(paused, accepted);
    const client = new WebLoyaltyClient(options);
    const result = await client.send('InvoiceEarned', invoice());

    expect(result.attempts).toBe(2);
    for (const s of seen)
      expect(verifyByHand(s.body, s.headers.get('x-signature') ?? undefined, SECRET)).toBeTypeOf('number');
    expect(seen[0]?.headers.get('user-agent')).toMatch(
      new RegExp(`^loyalty-partner-sdk/${SDK_VERSION} \\S+$`),
    );
    await client.close();
  });

  it('is the base class of the Node build’s client, so instanceof holds from either entry', () => {
    const nodeClient = new LoyaltyClient(options);
    expect(nodeClient).toBeInstanceOf(WebLoyaltyClient);
    expect(nodeClient).toBeInstanceOf(LoyaltyClient);
    expect(new WebLoyaltyClient(options)).not.toBeInstanceOf(LoyaltyClient);
    return nodeClient.close();
  });
});
