import { inspect } from 'node:util';
import { LoyaltyApiError, type LoyaltyClient } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { API_KEY, clientFor, invoice, SECRET } from './support/client-fixture.js';
import { scriptedServerPerTest } from './support/scripted-server.js';

const OLD_SECRET = 'whsec_old_0f1e2d3c4b5a';
let client: LoyaltyClient;
const server = scriptedServerPerTest(() => client);

/** Every way an error reaches a log line. */
const renderings = (err: unknown) => [
  String(err),
  (err as Error).message,
  JSON.stringify(err),
  inspect(err, { depth: 5 }),
  (err as Error).stack ?? '',
];

describe('text taken from the wire is redacted', () => {
  it('drops the API key, every signing secret and the signature a server echoes back', async () => {
    let signature = '';
    server.script = (req, res) => {
      signature = String(req.headers['x-signature']);
      const echoed = `key=${req.headers['x-api-key']} sig=${signature} secrets=${SECRET},${OLD_SECRET}`;
      res.writeHead(400, { 'content-type': 'application/json', 'x-correlation-id': `corr ${API_KEY}` });
      res.end(JSON.stringify({ code: 'INVALID_PAYLOAD', message: `echo: ${echoed}.`, correlationId: 'c' }));
    };
    client = clientFor(server, { signingSecret: [SECRET, OLD_SECRET] });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(LoyaltyApiError);
    const digests = [...signature.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]!);
    expect(digests).toHaveLength(2);
    for (const text of renderings(error)) {
      for (const secret of [API_KEY, SECRET, OLD_SECRET, ...digests]) expect(text).not.toContain(secret);
      expect(text).not.toMatch(/v1=[0-9a-f]/);
    }
    expect((error as Error).message).toContain('echo: key=[redacted] sig=t=');
    expect((error as LoyaltyApiError).correlationId).toBe('corr [redacted]');
  });

  it('drops them from an unknown error code too, and from what onResponse and onRetry see', async () => {
    const seen: unknown[] = [];
    server.script = (req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: `X_${req.headers['x-api-key']}`,
          message: String(req.headers['x-signature']),
        }),
      );
    };
    client = clientFor(server, {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
      hooks: { onResponse: (e) => void seen.push(e), onRetry: (e) => void seen.push(e) },
    });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    for (const text of [...renderings(error), JSON.stringify(seen)]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toMatch(/v1=[0-9a-f]/);
    }
    expect(error).toMatchObject({ code: 'X_[redacted]', attempts: 2 });
  });
});
