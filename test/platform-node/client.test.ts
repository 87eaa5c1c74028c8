import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LoyaltyClient } from 'loyalty-partner-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { CLIENT_DEFAULTS } from '../../src/client/options.js';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';

let server: ScriptedServer | undefined;
let client: LoyaltyClient | undefined;
const warnings: Error[] = [];
const collect = (warning: Error) => void warnings.push(warning);

afterEach(async () => {
  process.off('warning', collect);
  warnings.length = 0;
  await client?.close();
  await server?.close();
});

describe('LoyaltyClient of the Node build', () => {
  it('sends twice its socket count of events at once without a MaxListenersExceededWarning', async () => {
    server = await startScriptedServer();
    client = clientFor(server);
    process.on('warning', collect);
    const inFlight = 2 * CLIENT_DEFAULTS.connections;

    const results = await Promise.all(
      Array.from({ length: inFlight }, (_, i) => client!.send('InvoiceEarned', invoice(`inv-${i}`))),
    );
    await nextTurn(); // process warnings are emitted on a later tick

    expect(results.map((result) => result.status)).toEqual(Array(inFlight).fill(200));
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
  });

  it('still cancels every call in flight when closed', async () => {
    server = await startScriptedServer(() => {}); // never answers
    client = clientFor(server);
    const calls = Array.from({ length: 12 }, (_, i) =>
      client!.send('InvoiceEarned', invoice(`inv-${i}`)).catch((err: unknown) => err),
    );
    await nextTurn();
    await client.close();
    const errors = await Promise.all(calls);
    expect(errors.map((err) => (err as Error).name)).toEqual(Array(12).fill('LoyaltyClientClosedError'));
  });

  it('cancels calls still waiting for a free socket when closed, without sending them', async () => {
    server = await startScriptedServer(() => {}); // never answers
    client = clientFor(server, { connections: 1 });
    const calls = Array.from({ length: 3 }, (_, i) =>
      client!.send('InvoiceEarned', invoice(`inv-${i}`)).catch((err: unknown) => err),
    );
    while (server.requests.length < 1) await nextTurn();
    await client.close();
    const errors = await Promise.all(calls);
    expect(errors.map((err) => (err as Error).name)).toEqual(Array(3).fill('LoyaltyClientClosedError'));
    expect(server.requests).toHaveLength(1);
  });

  it('leaves no timer running once its calls have settled, so an idle process can exit', async () => {
    server = await startScriptedServer();
    client = clientFor(server, { timeoutMs: 60_000 });
    const timers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;
    const before = timers();
    const sending = Promise.all(
      Array.from({ length: 4 }, (_, i) => client!.send('InvoiceEarned', invoice(`inv-${i}`))),
    );
    await sending;
    // At most as many as before: a timer of an earlier test may end meanwhile (as it did on a
    // loaded machine), while a call that left its 60 s timeout behind would add four.
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
