import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod/mini';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

// zod compiles a schema with `new Function`: counting those calls counts compilations.
const compilations = () => vi.spyOn(globalThis, 'Function');

/** The Node build as a fresh import, with no schema compiled yet. */
async function freshNodeReceiver() {
  vi.resetModules();
  const { createReceiver } = await import('loyalty-partner-sdk/webhooks');
  return createReceiver({ secrets: SECRET, handlers: { IntegrationStatusChanged: () => {} } });
}

describe('the envelope schemas of the Node receiver', () => {
  beforeEach(() => void z.config({ jitless: false }));
  afterEach(() => {
    vi.restoreAllMocks();
    z.config({ jitless: false });
  });

  it('are compiled on the first delivery of each event type, once, not when the receiver is created', async () => {
    const spy = compilations();
    const receiver = await freshNodeReceiver();
    expect(spy).not.toHaveBeenCalled();

    const first = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    const afterFirst = spy.mock.calls.length;
    const second = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(afterFirst).toBeGreaterThan(0);
    expect(spy).toHaveBeenCalledTimes(afterFirst);
  });

  it('are never compiled when the application turned code generation off with jitless', async () => {
    z.config({ jitless: true });
    const spy = compilations();
    const receiver = await freshNodeReceiver();
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(answer.status).toBe(200);
    expect(spy).not.toHaveBeenCalled();
  });
});
