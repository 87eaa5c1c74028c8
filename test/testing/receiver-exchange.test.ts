/*
 * How the conformance kit reads an answer: within its timeout, to 1 MiB decoded at most, whatever
 * the receiver sends. Real servers on loopback answer with bombs of each encoding fetch decodes,
 * an endless body and a trickle; checkReceiver (the public entry) reports each as a clear verdict.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { checkReceiver, receiverCases } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';

const SECRET = 'whsec_exchange_test';
const OVER_THE_CAP = /^HTTP 200, but the answer went on past 1 MiB \(decoded\): stopped reading$/;

// 64 MiB of zeros, compressed once: a few KB that inflate far past the 1 MiB cap.
const zeros = Buffer.alloc(64 << 20);
const BOMBS = {
  gzip: gzipSync(zeros),
  deflate: deflateSync(zeros),
  br: brotliCompressSync(zeros),
};

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function serve(answer: (res: ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stop = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
}

const firstCase = [receiverCases[0]!];

describe('checkReceiver reading an answer', () => {
  it.each(Object.entries(BOMBS))('stops a %s bomb at 1 MiB decoded and says so', async (encoding, bomb) => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-encoding': encoding, 'content-length': bomb.length });
      res.end(bomb);
    });
    const report = await checkReceiver({ url, secret: SECRET, cases: firstCase, timeoutMs: 20_000 });
    expect(report.cases[0]).toMatchObject({
      pass: false,
      observed: expect.stringMatching(OVER_THE_CAP),
      fix: expect.stringMatching(/^answer with a short body that ends at once/),
    });
  });

  it('stops an endless body at 1 MiB', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 32);
      const write = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', write);
      };
      write();
    });
    const report = await checkReceiver({ url, secret: SECRET, cases: firstCase, timeoutMs: 20_000 });
    expect(report.cases[0]?.observed).toMatch(OVER_THE_CAP);
  });

  it('stops a body that trickles in at the timeout, counting what came', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{');
    });
    const report = await checkReceiver({ url, secret: SECRET, cases: firstCase, timeoutMs: 500 });
    expect(report.cases[0]?.observed).toBe(
      'HTTP 200, but the answer was not complete within 500 ms (1 bytes came): stopped reading',
    );
  });

  it('ends a case on time even when the transport ignores the abort signal', async () => {
    const never = () => new Promise<Response>(() => {});
    const report = await checkReceiver({
      url: 'http://receiver.test/webhooks',
      secret: SECRET,
      cases: firstCase,
      timeoutMs: 200,
      fetch: never,
    });
    expect(report.cases[0]?.observed).toBe('no answer within 200 ms (timed out)');
  });

  it('ends a body on time even when its stream ignores the abort signal', async () => {
    const endless = () =>
      Promise.resolve(
        new Response(new ReadableStream({ pull: () => new Promise(() => {}) }), { status: 200 }),
      );
    const report = await checkReceiver({
      url: 'http://receiver.test/webhooks',
      secret: SECRET,
      cases: firstCase,
      timeoutMs: 200,
      fetch: endless,
    });
    expect(report.cases[0]?.observed).toBe(
      'HTTP 200, but the answer was not complete within 200 ms (0 bytes came): stopped reading',
    );
  });
});

describe('checkReceiver options', () => {
  it.each([
    [{ url: 'http://partner:s3cr3t@127.0.0.1:9/webhooks' }, /url: must not carry a user name or password/],
    [{ url: 'ftp://127.0.0.1/webhooks' }, /url: must be an absolute http\(s\) URL/],
    [{ timeoutMs: 2 ** 31 }, /timeoutMs: must be a whole number of milliseconds from 1 to 2147483647/],
    [{ timeoutMs: 0 }, /timeoutMs: must be a whole number of milliseconds from 1 to 2147483647/],
    [
      { slowMs: Number.POSITIVE_INFINITY },
      /slowMs: must be a whole number of milliseconds from 0 to 2147483647/,
    ],
  ])('refuses %j with INVALID_OPTIONS, naming the option and never the password', async (change, message) => {
    const options = { url: 'http://127.0.0.1:9/webhooks', secret: SECRET, cases: firstCase, ...change };
    const error = await checkReceiver(options).catch((err: unknown) => err);
    expect(error).toMatchObject({ name: 'LoyaltyValidationError', code: 'INVALID_OPTIONS' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('s3cr3t');
  });
});
