import type { ServerResponse } from 'node:http';
import { type LoyaltyClient, LoyaltyNetworkError } from 'loyalty-partner-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
let client: LoyaltyClient;
const timers = new Set<ReturnType<typeof setInterval>>();

beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const timer of timers) clearInterval(timer);
  timers.clear();
  await client?.close();
  await server.close();
});

/** Writes `chunk` every `everyMs` until the client goes away. */
function keepWriting(res: ServerResponse, chunk: Buffer | string, everyMs: number): void {
  const timer = setInterval(() => {
    if (res.destroyed || res.socket?.destroyed) return clearInterval(timer);
    res.write(chunk);
  }, everyMs);
  timers.add(timer);
}

/** Resolves once the server side of the request's socket is closed. */
const socketClosed = (index: number) =>
  new Promise<void>((resolve) => {
    const wait = () => {
      const socket = server.requests[index]?.socket;
      if (socket?.destroyed) resolve();
      else setTimeout(wait, 10);
    };
    wait();
  });

// Both transports: the Node build's undici agent, and `fetch` passed as an option.
describe.each([
  ['undici (Node default)', {}],
  ['fetch option', { fetch: globalThis.fetch }],
])('answers the client will not read whole, over %s', (_name, transport) => {
  it('cuts an endless chunked body at maxResponseBytes and rejects with RESPONSE_TOO_LARGE, not retried', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      keepWriting(res, Buffer.alloc(64 * 1024, 0x20), 1);
    };
    client = clientFor(server, { ...transport, maxResponseBytes: 256 * 1024 });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LoyaltyNetworkError);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', attempts: 1 });
    expect(String(error)).toMatch(/maxResponseBytes \(262144 bytes\)/);
    await socketClosed(0);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a Content-Length over the limit at once (a 4,200 MiB answer)', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(4200 * 2 ** 20) });
      res.write('{"accepted":');
    };
    client = clientFor(server, { ...transport, timeoutMs: 60_000 });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toMatchObject({ name: 'LoyaltyNetworkError', code: 'RESPONSE_TOO_LARGE', attempts: 1 });
    await socketClosed(0);
  });

  it('defaults to 1 MiB: a 2 MiB answer is refused, a 1 MiB one is read', async () => {
    let size = 2 * 2 ** 20;
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(Buffer.alloc(size, 0x61));
    };
    client = clientFor(server, transport);
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({
      code: 'RESPONSE_TOO_LARGE',
    });
    size = 2 ** 20;
    const result = await client.send('InvoiceEarned', invoice('inv-2'));
    expect((result.body as string).length).toBe(2 ** 20);
  });

  it('counts the body within timeoutMs: headers at once, then a body that trickles forever', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      keepWriting(res, ' ', 20);
    };
    client = clientFor(server, { ...transport, timeoutMs: 300, retry: false });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({
      name: 'LoyaltyNetworkError',
      code: 'TIMEOUT',
      attempts: 1,
    });
  });

  it('counts the body within timeoutMs: a Content-Length the server never completes', async () => {
    server.script = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"accepted":');
    };
    client = clientFor(server, { ...transport, timeoutMs: 300, retry: false });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({ code: 'TIMEOUT' });
    await socketClosed(0);
  });
});

describe('maxResponseBytes', () => {
  it('is refused outside 1024 bytes to 64 MiB', () => {
    for (const maxResponseBytes of [0, 1023, 64 * 2 ** 20 + 1, 1.5]) {
      expect(() => clientFor(server, { maxResponseBytes })).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTIONS',
          issues: [expect.objectContaining({ path: 'maxResponseBytes' })],
        }),
      );
    }
  });
});
