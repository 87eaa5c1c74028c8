import type { CustomerLookupBody, LoyaltyClient } from 'loyalty-partner-sdk';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { clientFor } from './support/client-fixture.js';
import { ok, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
let client: LoyaltyClient;

beforeEach(async () => {
  server = await startScriptedServer();
  client = clientFor(server);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('lookupCustomer', () => {
  it('returns the JSON object the service answered, typed as a record of unknown values', async () => {
    server.script = (_req, res) => ok(res, { customerId: 'cus-7', points: 120 });
    const result = await client.lookupCustomer({ phone: '+966500000007' });
    expectTypeOf(result.body).toEqualTypeOf<CustomerLookupBody>();
    expectTypeOf(result.body.customerId).toEqualTypeOf<unknown>();
    expect(result.body).toEqual({ customerId: 'cus-7', points: 120 });
    expect(server.requests[0]!.url).toBe('/api/partner/v1/customers/lookup?phone=%2B966500000007');
  });

  it('gives {} when the answer holds no JSON object (empty, text or an array)', async () => {
    const answers = ['', 'found', '[1,2]'];
    server.script = (_req, res, i) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(answers[i]);
    };
    for (const _ of answers) expect((await client.lookupCustomer({ customerId: 'cus-7' })).body).toEqual({});
  });
});
