import { getEventListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import {
  createEnvelope,
  LoyaltyApiError,
  LoyaltyClient,
  LoyaltyClientClosedError,
  LoyaltyNetworkError,
  LoyaltyValidationError,
} from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { parseInboundEnvelope } from '../../src/contract/index.js';
import { SDK_VERSION } from '../../src/contract/sdk-version.js';
import { API_KEY, clientFor, invoice, SECRET } from './support/client-fixture.js';
import { fail, ok, type Script, scriptedServerPerTest, verifyByHand } from './support/scripted-server.js';

let client: LoyaltyClient;
const server = scriptedServerPerTest(() => client);

/** Waits until `condition` holds; the test's timeout bounds it. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

describe('LoyaltyClient.send', () => {
  it('posts the signed envelope to /api/partner/v1/events with the API key, JSON type and User-Agent', async () => {
    client = clientFor(server);
    const result = await client.send('InvoiceEarned', invoice());

    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/partner/v1/events');
    expect(request?.headers['x-api-key']).toBe(API_KEY);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['user-agent']).toBe(
      `loyalty-partner-sdk/${SDK_VERSION} node/${process.versions.node}`,
    );
    expect(verifyByHand(request!.body, request?.headers['x-signature'], SECRET)).toBeTypeOf('number');
    const envelope = parseInboundEnvelope(JSON.parse(request!.body.toString('utf8')));
    expect(envelope).toMatchObject({
      eventType: 'InvoiceEarned',
      eventId: result.eventId,
      sourceSystem: 'Partner',
    });
    expect(result).toEqual({
      eventId: envelope.eventId,
      status: 200,
      correlationId: 'corr-ok',
      attempts: 1,
      body: { accepted: true },
    });
  });

  it('keeps a path prefix of baseUrl and takes the correlation id from the body when no header carries it', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ correlationId: 'corr-from-body' }));
    };
    client = clientFor(server, { baseUrl: `${server.url}/loyalty/` });
    const result = await client.send('BranchSynced', {
      externalBranchId: 'b-1',
      name: 'Olaya',
      isActive: true,
    });
    expect(server.requests[0]?.url).toBe('/loyalty/api/partner/v1/events');
    expect(result.correlationId).toBe('corr-from-body');
  });

  it('sends the same body bytes on every attempt, each under a fresh, valid signature', async () => {
    server.script = (_req, res, i) => (i < 2 ? fail(res, 503, 'CONCURRENCY_CONFLICT') : ok(res));
    let wall = Date.now();
    client = clientFor(server, { now: () => (wall += 2_000) });
    const result = await client.send('InvoiceEarned', invoice());

    expect(result.attempts).toBe(3);
    const [first, ...others] = server.requests;
    for (const request of others) expect(request.body.equals(first!.body)).toBe(true);
    const stamps = server.requests.map((r) => verifyByHand(r.body, r.headers['x-signature'], SECRET));
    expect(stamps.every((t) => typeof t === 'number')).toBe(true);
    expect(new Set(stamps).size).toBe(3);
    expect(JSON.parse(first!.body.toString()).eventId).toBe(result.eventId);
  });

  it('signs once per secret while secrets rotate', async () => {
    client = clientFor(server, { signingSecret: ['whsec_new_one', SECRET] });
    await client.send('InvoiceEarned', invoice());
    const [request] = server.requests;
    expect(request?.headers['x-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(verifyByHand(request!.body, request?.headers['x-signature'], 'whsec_new_one')).toBeTypeOf(
      'number',
    );
    expect(verifyByHand(request!.body, request?.headers['x-signature'], SECRET)).toBeTypeOf('number');
  });

  it('refuses an invalid payload locally, naming the field, and sends nothing', async () => {
    client = clientFor(server);
    const payload = { ...invoice(), earnType: 'Stamps' as const, stampCardId: null };
    const error = await client.send('InvoiceEarned', payload).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).code).toBe('INVALID_PAYLOAD');
    expect((error as LoyaltyValidationError).issues.map((issue) => issue.path)).toEqual([
      'payload.stampCardId',
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an outbound event type and an unknown one, and sends nothing', async () => {
    client = clientFor(server);
    const send = client.send as (type: string, payload: unknown) => Promise<unknown>;
    await expect(send.call(client, 'LoyaltyRuleChanged', {})).rejects.toMatchObject({
      code: 'WRONG_EVENT_DIRECTION',
    });
    await expect(send.call(client, 'InvoiceEarnt', {})).rejects.toMatchObject({ code: 'UNKNOWN_EVENT_TYPE' });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an eventId that is not a UUIDv7 and sends nothing', async () => {
    client = clientFor(server);
    const eventId = '0b9f6f0e-4c1e-4d3a-9d1c-2f6f1b7e9a10';
    const error = await client.send('InvoiceEarned', invoice(), { eventId }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).issues.map((issue) => issue.path)).toEqual(['eventId']);
    expect(server.requests).toHaveLength(0);
  });

  it('sends once with retry: false', async () => {
    server.script = (_req, res) => fail(res, 503, 'INTEGRATION_PAUSED');
    client = clientFor(server, { retry: false });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'INTEGRATION_PAUSED', attempts: 1, retryable: true });
    expect(server.requests).toHaveLength(1);
  });
});

describe('LoyaltyClient.sendEnvelope', () => {
  it('re-sends an envelope built earlier under its own eventId', async () => {
    client = clientFor(server);
    const envelope = createEnvelope('CouponUsed', {
      externalCouponId: 'k-1',
      externalCustomerId: 'c-1',
      externalInvoiceId: 'i-1',
    });
    const stored = JSON.parse(JSON.stringify(envelope));
    const result = await client.sendEnvelope(stored, { firstAttemptAt: new Date() });
    expect(result.eventId).toBe(envelope.eventId);
    expect(JSON.parse(server.requests[0]!.body.toString()).eventId).toBe(envelope.eventId);
  });

  it('refuses an envelope that breaks the contract and sends nothing', async () => {
    client = clientFor(server);
    const envelope = {
      ...createEnvelope('BranchSynced', { externalBranchId: 'b', name: 'n', isActive: true }),
      eventId: 'nope',
    };
    await expect(client.sendEnvelope(envelope)).rejects.toBeInstanceOf(LoyaltyValidationError);
    expect(server.requests).toHaveLength(0);
  });

  it('does not retry once the 24-hour dedup window of an old envelope could have closed', async () => {
    server.script = (_req, res) => fail(res, 503, 'CONCURRENCY_CONFLICT');
    client = clientFor(server);
    const occurredAt = new Date(Date.now() - 23.5 * 3_600_000);
    const envelope = createEnvelope('InvoiceEarned', invoice(), { occurredAt });
    const error = await client.sendEnvelope(envelope).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'CONCURRENCY_CONFLICT', attempts: 1, retryable: true });
    expect((error as Error).message).toMatch(/24-hour dedup window/);

    server.requests.length = 0;
    await expect(client.sendEnvelope(envelope, { firstAttemptAt: new Date() })).rejects.toMatchObject({
      attempts: 6,
    });
    expect(server.requests).toHaveLength(6);
  });

  // The service's codes, and the client's own no-answer codes: an offline queue probes with one request.
  it.each([
    {
      code: 'INTEGRATION_PAUSED',
      answer: ((_req, res) => fail(res, 503, 'INTEGRATION_PAUSED')) satisfies Script,
      kind: LoyaltyApiError,
    },
    {
      code: 'NETWORK_ERROR',
      answer: ((req) => void req.socket.destroy()) satisfies Script,
      kind: LoyaltyNetworkError,
    },
  ])(
    'answers $code among the noRetryCodes at once, still retryable, for a queue that handles it itself',
    async ({ code, answer, kind }) => {
      server.script = answer;
      client = clientFor(server);
      const envelope = createEnvelope('InvoiceEarned', invoice());
      const error = await client
        .sendEnvelope(envelope, { firstAttemptAt: new Date(), noRetryCodes: [code] })
        .catch((err: unknown) => err);
      expect(error).toBeInstanceOf(kind);
      expect(error).toMatchObject({ code, attempts: 1, retryable: true });
      expect(server.requests).toHaveLength(1);
    },
  );
});

describe('LoyaltyClient.checkConnection and lookupCustomer', () => {
  it('checks the connection with an unsigned GET that carries the API key', async () => {
    client = clientFor(server);
    const result = await client.checkConnection();
    expect(result.status).toBe(200);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/api/partner/v1/connection' });
    expect(server.requests[0]?.headers['x-api-key']).toBe(API_KEY);
    expect(server.requests[0]?.headers['x-signature']).toBeUndefined();
  });

  it('looks a customer up by phone with a GET signed over the empty body', async () => {
    client = clientFor(server, { paths: { customerLookup: '/api/partner/v1/customer-lookup' } });
    await client.lookupCustomer({ phone: '+966 500 000 001' });
    const [request] = server.requests;
    expect(request?.url).toBe('/api/partner/v1/customer-lookup?phone=%2B966%20500%20000%20001');
    expect(verifyByHand(Buffer.alloc(0), request?.headers['x-signature'], SECRET)).toBeTypeOf('number');
  });

  it('refuses a lookup with both keys or neither, without a request and without echoing the phone', async () => {
    client = clientFor(server);
    const both = { phone: '+966500000001', customerId: 'c-1' } as never;
    for (const query of [both, {} as never]) {
      const error = await client.lookupCustomer(query).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(LoyaltyValidationError);
      expect((error as LoyaltyValidationError).code).toBe('INVALID_REQUEST');
      expect((error as Error).message).not.toContain('+966500000001');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('retries the idempotent GETs like events', async () => {
    server.script = (_req, res, i) => (i === 0 ? fail(res, 503, 'INTEGRATION_PAUSED') : ok(res));
    client = clientFor(server);
    await expect(client.lookupCustomer({ customerId: 'c-1' })).resolves.toMatchObject({ attempts: 2 });
  });
});

describe('LoyaltyClient.request', () => {
  it('keeps one Idempotency-Key across retries, generating a UUID when none is given', async () => {
    server.script = (_req, res, i) => (i % 2 === 0 ? fail(res, 503, 'CONCURRENCY_CONFLICT') : ok(res));
    client = clientFor(server);
    await client.request({
      method: 'POST',
      path: '/api/partner/v1/redemptions/validate',
      body: { code: 'R-1' },
    });
    await client.request({
      method: 'POST',
      path: '/api/partner/v1/redemptions/validate',
      body: { code: 'R-1' },
      idempotencyKey: 'key-7',
    });
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys.slice(2)).toEqual(['key-7', 'key-7']);
    expect(
      verifyByHand(server.requests[0]!.body, server.requests[0]?.headers['x-signature'], SECRET),
    ).toBeTypeOf('number');
  });

  it('stops at once on a 422 business decline', async () => {
    server.script = (_req, res) => fail(res, 422, 'REDEMPTION_DECLINED');
    client = clientFor(server);
    const error = await client
      .request({ method: 'POST', path: '/api/partner/v1/redemptions/confirm' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 422,
      code: 'REDEMPTION_DECLINED',
      retryable: false,
      action: 'stop',
      attempts: 1,
    });
  });

  it('refuses a path that would leave the base URL', async () => {
    client = clientFor(server);
    for (const path of ['//evil.example/x', 'https://evil.example/x', 'relative']) {
      await expect(client.request({ method: 'GET', path })).rejects.toMatchObject({
        code: 'INVALID_REQUEST',
      });
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('LoyaltyClient hooks', () => {
  it('reports requests, answers and retries without ever handing over the key, the secret or a signature', async () => {
    server.script = (_req, res, i) => (i === 0 ? fail(res, 503, 'SUBSCRIPTION_LAPSED') : ok(res));
    const seen: unknown[] = [];
    const record = (event: unknown) => void seen.push(event);
    client = clientFor(server, { hooks: { onRequest: record, onResponse: record, onRetry: record } });
    const { eventId } = await client.send('InvoiceEarned', invoice());

    expect(seen).toHaveLength(5);
    expect(seen[2]).toMatchObject({
      attempt: 1,
      code: 'SUBSCRIPTION_LAPSED',
      status: 503,
      correlationId: 'corr-SUBSCRIPTION_LAPSED',
      eventId,
    });
    const text = JSON.stringify(seen);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(SECRET);
    for (const request of server.requests)
      expect(text).not.toContain(String(request.headers['x-signature']).slice(-64));
    expect((seen[0] as { headers: Record<string, string> }).headers['x-signature']).toBe('[redacted]');
  });

  it('keeps sending when a hook throws', async () => {
    client = clientFor(server, {
      hooks: {
        onRequest: () => {
          throw new Error('logger down');
        },
      },
    });
    await expect(client.send('InvoiceEarned', invoice())).resolves.toMatchObject({ status: 200 });
  });
});

describe('LoyaltyClient.close', () => {
  it('makes later calls fail with LoyaltyClientClosedError', async () => {
    client = clientFor(server);
    await client.close();
    await expect(client.send('InvoiceEarned', invoice())).rejects.toBeInstanceOf(LoyaltyClientClosedError);
    await expect(client.checkConnection()).rejects.toBeInstanceOf(LoyaltyClientClosedError);
    await client.close();
  });

  it("cancels a call in flight that carries the caller's own signal, with LoyaltyClientClosedError", async () => {
    server.script = () => {}; // never answers
    client = clientFor(server, { timeoutMs: 60_000 });
    const caller = new AbortController();
    const sending = client.send('InvoiceEarned', invoice(), { signal: caller.signal });
    const refused = expect(sending).rejects.toBeInstanceOf(LoyaltyClientClosedError);
    await until(() => server.requests.length === 1);
    await client.close();

    await refused;
    expect(caller.signal.aborted).toBe(false);
  });

  it("leaves no listener on a long-lived caller's signal once its calls end", async () => {
    client = clientFor(server);
    const caller = new AbortController();
    for (let i = 0; i < 3; i++) await client.send('InvoiceEarned', invoice(), { signal: caller.signal });

    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('cancels a call still waiting to retry', async () => {
    server.script = (_req, res) => fail(res, 503, 'INTEGRATION_PAUSED', { 'retry-after': '60' });
    client = clientFor(server, { hooks: { onRetry: () => void client.close() } });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toBeInstanceOf(LoyaltyClientClosedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('LoyaltyClient options', () => {
  it('refuses bad options with INVALID_OPTIONS naming each one, never quoting the key or the secret', () => {
    const attempt = () =>
      new LoyaltyClient({
        baseUrl: 'ftp://loyalty.example',
        apiKey: 'has space secret-ish-key',
        signingSecret: [],
        timeoutMs: -1,
        retry: { maxAttempts: 0, maxElapsedMs: 25 * 3_600_000 },
        // @ts-expect-error a misspelt option
        retires: 3,
      });
    const error = (() => {
      try {
        attempt();
      } catch (err) {
        return err as LoyaltyValidationError;
      }
    })();
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect(error?.code).toBe('INVALID_OPTIONS');
    expect(error?.issues.map((issue) => issue.path).sort()).toEqual(
      [
        'apiKey',
        'baseUrl',
        'retires',
        'retry.maxAttempts',
        'retry.maxElapsedMs',
        'signingSecret',
        'timeoutMs',
      ].sort(),
    );
    expect(error?.message).not.toContain('secret-ish-key');
  });

  it('refuses a base URL that is not http(s), or that carries credentials or a query', () => {
    for (const baseUrl of ['not a url', 'ftp://h', 'https://user:pw@h', 'https://h/?a=1']) {
      expect(() => new LoyaltyClient({ baseUrl, apiKey: API_KEY, signingSecret: SECRET })).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          issues: [expect.objectContaining({ path: 'baseUrl' })],
        }),
      );
    }
  });
});

describe('SDK_VERSION', () => {
  it('is the version in package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(SDK_VERSION).toBe(pkg.version);
  });
});

describe('LoyaltyApiError', () => {
  it('carries status, code, action, correlation id, event id and attempts, with the remedy in its message', async () => {
    server.script = (_req, res) => fail(res, 400, 'BRANCH_MAPPING_UNCONFIRMED');
    client = clientFor(server);
    const error = (await client
      .send('InvoiceEarned', invoice())
      .catch((err: unknown) => err)) as LoyaltyApiError;
    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect(error.name).toBe('LoyaltyApiError');
    expect(error).toMatchObject({
      status: 400,
      code: 'BRANCH_MAPPING_UNCONFIRMED',
      action: 'fix-setup',
      correlationId: 'corr-BRANCH_MAPPING_UNCONFIRMED',
      retryable: false,
      attempts: 1,
    });
    expect(error.eventId).toBe(JSON.parse(server.requests[0]!.body.toString()).eventId);
    expect(error.message).toMatch(/confirm the branch pairing/);
  });
});
