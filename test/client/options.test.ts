import { createEnvelope, type LoyaltyClient, LoyaltyValidationError } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { API_KEY, clientFor, invoice, SECRET } from './support/client-fixture.js';
import { fail, ok, scriptedServerPerTest } from './support/scripted-server.js';

let client: LoyaltyClient;
const server = scriptedServerPerTest(() => client);

/** The error a function throws, or `undefined`. */
function thrownBy(fn: () => unknown): LoyaltyValidationError | undefined {
  try {
    fn();
  } catch (err) {
    return err as LoyaltyValidationError;
  }
  return undefined;
}

describe('an option given as undefined keeps its default', () => {
  it('client options: timeoutMs, maxResponseBytes, connections, now, hooks, fetch and paths', async () => {
    client = clientFor(server, {
      timeoutMs: undefined,
      maxResponseBytes: undefined,
      connections: undefined,
      now: undefined,
      hooks: undefined,
      fetch: undefined,
      paths: { events: undefined, connection: undefined, customerLookup: undefined },
    });
    await client.send('InvoiceEarned', invoice());
    await client.checkConnection();
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/partner/v1/events',
      '/api/partner/v1/connection',
    ]);
  });

  it('retry: maxAttempts undefined still makes the default 6 attempts, not 101', async () => {
    server.script = (_req, res) => fail(res, 503, 'CONCURRENCY_CONFLICT');
    client = clientFor(server, {
      retry: { baseDelayMs: 1, maxDelayMs: 4, maxAttempts: undefined, maxElapsedMs: undefined },
    });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'CONCURRENCY_CONFLICT', attempts: 6 });
    expect(server.requests).toHaveLength(6);
  });

  it('retry: a budget of undefined fields keeps the default budget', async () => {
    server.script = (_req, res, i) => (i < 2 ? fail(res, 503, 'CONCURRENCY_CONFLICT') : ok(res));
    client = clientFor(server, {
      retry: { baseDelayMs: 1, maxDelayMs: 4, budget: { capacity: undefined, refillPerSuccess: undefined } },
    });
    expect((await client.send('InvoiceEarned', invoice())).attempts).toBe(3);
  });

  it('send and sendEnvelope options', async () => {
    client = clientFor(server);
    const sent = await client.send('InvoiceEarned', invoice(), {
      eventId: undefined,
      occurredAt: undefined,
      correlationId: undefined,
      entityId: undefined,
      signal: undefined,
    });
    const envelope = createEnvelope('InvoiceEarned', invoice('inv-2'));
    const again = await client.sendEnvelope(envelope, {
      firstAttemptAt: undefined,
      noRetryCodes: undefined,
      signal: undefined,
    });
    expect([sent.status, again.eventId]).toEqual([200, envelope.eventId]);
    expect(JSON.parse(server.requests[0]!.body.toString())).toMatchObject({ entityId: 'inv-5001' });
  });

  it('syncBatch: fallbackToSingle undefined still falls back to single events while the batch type is Planned', async () => {
    server.script = (req, res) => {
      const { eventType } = JSON.parse(req.body.toString());
      if (eventType.endsWith('Batch')) return fail(res, 503, 'EVENT_HANDLER_NOT_REGISTERED');
      ok(res);
    };
    client = clientFor(server);
    const items = [
      { externalCustomerId: 'c-1', phone: '+966500000001' },
      { externalCustomerId: 'c-2', phone: '+966500000002' },
    ];
    const summary = await client.syncBatch('CustomersSyncedBatch', items, {
      fallbackToSingle: undefined,
      concurrency: undefined,
      onProgress: undefined,
      signal: undefined,
    });
    expect(summary).toMatchObject({ batches: 0, fallbacks: 1 });
    // One batch attempt (not retried, since the fallback is on), then the two single events.
    expect(server.requests).toHaveLength(3);
  });
});

describe('INVALID_OPTIONS', () => {
  it('names every invalid option at once, the baseUrl among them', () => {
    const error = thrownBy(
      () =>
        new (clientFor(server).constructor as typeof LoyaltyClient)({
          baseUrl: 'ftp://loyalty.example',
          apiKey: 'has space',
          signingSecret: SECRET,
          timeoutMs: 0,
          retry: { baseDelayMs: 100, maxDelayMs: 10 },
        }),
    );
    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect(error?.code).toBe('INVALID_OPTIONS');
    expect(error?.issues.map((issue) => issue.path).sort()).toEqual(
      ['apiKey', 'baseUrl', 'retry.maxDelayMs', 'timeoutMs'].sort(),
    );
  });

  it('refuses a blank signing secret, alone or in a rotation list, without quoting it', () => {
    const Client = clientFor(server).constructor as typeof LoyaltyClient;
    for (const signingSecret of ['   ', '\t', ['whsec_new', ' \n ']]) {
      const error = thrownBy(() => new Client({ baseUrl: server.url, apiKey: API_KEY, signingSecret }));
      expect(error?.code).toBe('INVALID_OPTIONS');
      expect(error?.issues[0]?.path).toMatch(/^signingSecret/);
      expect(error?.issues[0]?.message).toMatch(/blank/);
    }
  });

  it('names a misspelt option inside retry, hooks and paths, and a hook that is not a function', () => {
    const Client = clientFor(server).constructor as typeof LoyaltyClient;
    const error = thrownBy(
      () =>
        new Client({
          baseUrl: server.url,
          apiKey: API_KEY,
          signingSecret: SECRET,
          retry: { maxAtempts: 3 } as never,
          hooks: { onRequest: 'log' as never, onResponce: () => {} } as never,
          paths: { events: 'api/events' },
        }),
    );
    expect(error?.issues).toEqual([
      { path: 'retry.maxAtempts', message: 'is not an option of LoyaltyClient (check its spelling)' },
      { path: 'hooks.onResponce', message: 'is not an option of LoyaltyClient (check its spelling)' },
      { path: 'hooks.onRequest', message: 'must be a function' },
      { path: 'paths.events', message: "must start with a single '/' and hold no query, fragment or space" },
    ]);
  });
});
