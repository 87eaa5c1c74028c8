import type { LoyaltyClient } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { INBOUND_EVENT_TYPES, parsePayload } from '../../src/contract/index.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';

// zod compiles a schema with `new Function`: counting those calls counts compilations.
const compilations = () => vi.spyOn(globalThis, 'Function');

let server: ScriptedServer;
const opened: LoyaltyClient[] = [];

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());

/** The Node build's client as a fresh import, with no schema compiled yet. */
async function freshNodeClient(): Promise<LoyaltyClient> {
  vi.resetModules();
  const { LoyaltyClient } = await import('loyalty-partner-sdk');
  const client = new LoyaltyClient({ baseUrl: server.url, apiKey: 'pk_test', signingSecret: 'whsec_test' });
  opened.push(client);
  return client;
}

const sentPayload = () => JSON.parse(server.requests.at(-1)!.body.toString('utf8')).payload;

describe('the payload schemas of the Node client', () => {
  beforeEach(() => void z.config({ jitless: false }));
  afterEach(async () => {
    vi.restoreAllMocks();
    z.config({ jitless: false });
    await Promise.all(opened.splice(0).map((client) => client.close()));
  });

  it('are compiled on the first send of each event type, once, not when the client is created', async () => {
    const spy = compilations();
    const client = await freshNodeClient();
    expect(spy).not.toHaveBeenCalled();

    await client.send('BranchSynced', samplePayload('BranchSynced'));
    const afterFirst = spy.mock.calls.length;
    await client.send('BranchSynced', samplePayload('BranchSynced'));

    expect(afterFirst).toBeGreaterThan(0);
    expect(spy).toHaveBeenCalledTimes(afterFirst);
  });

  it('are never compiled when the application turned code generation off with jitless', async () => {
    z.config({ jitless: true });
    const spy = compilations();
    const client = await freshNodeClient();
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    expect(spy).not.toHaveBeenCalled();
  });

  it('send every inbound type with the contract defaults applied, as parsePayload returns it', async () => {
    const client = await freshNodeClient();
    for (const type of INBOUND_EVENT_TYPES) {
      await client.send(type, samplePayload(type));
      expect(sentPayload(), type).toEqual(parsePayload(type, samplePayload(type)));
    }
    const { isActive: _, ...withoutDefault } = samplePayload('ProductSynced');
    await client.send('ProductSynced', withoutDefault);
    expect(sentPayload().isActive).toBe(true);
  });

  it('refuse an invalid payload in the very words of parsePayload, sending nothing', async () => {
    const client = await freshNodeClient();
    const invalid = {
      ...samplePayload('InvoiceEarned'),
      subtotalAfterDiscountBeforeVat: 'free',
      unknownField: 1,
    };
    const before = server.requests.length;

    // @ts-expect-error: the wrong type is the point
    const refusal = await client.send('InvoiceEarned', invalid).catch((error: unknown) => error);
    const expected = (() => {
      try {
        parsePayload('InvoiceEarned', invalid);
      } catch (error) {
        return error;
      }
    })();

    expect((expected as { issues: unknown[] }).issues).toHaveLength(2);
    expect(refusal).toMatchObject({ code: 'INVALID_PAYLOAD', message: (expected as Error).message });
    expect((refusal as { issues: unknown }).issues).toEqual((expected as { issues: unknown }).issues);
    expect(server.requests.length).toBe(before);
  });
});
