import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type LoyaltyClient, LoyaltyClientClosedError, LoyaltyNetworkError } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { fail, ok, scriptedServerPerTest } from './support/scripted-server.js';

let client: LoyaltyClient;
const server = scriptedServerPerTest(() => client);

const eventIdsSeen = () => new Set(server.requests.map((r) => JSON.parse(r.body.toString()).eventId));

describe('network failures are retried with the same eventId', () => {
  it('retries a connection reset (the server destroys the socket before answering)', async () => {
    server.script = (req, res, i) => void (i === 0 ? req.socket.destroy() : ok(res));
    client = clientFor(server);
    const result = await client.send('InvoiceEarned', invoice());
    expect(result.attempts).toBe(2);
    expect(eventIdsSeen()).toEqual(new Set([result.eventId]));
  });

  it('retries an attempt that got no answer within timeoutMs', async () => {
    server.script = (_req, res, i) => (i === 0 ? undefined : ok(res));
    const retries: string[] = [];
    client = clientFor(server, { timeoutMs: 150, hooks: { onRetry: (e) => void retries.push(e.code) } });
    const result = await client.send('InvoiceEarned', invoice());
    expect(result.attempts).toBe(2);
    expect(retries).toEqual(['TIMEOUT']);
    expect(eventIdsSeen()).toEqual(new Set([result.eventId]));
  });

  it('retries transparently when a kept-alive socket turns out stale (closed by the server as the request arrives)', async () => {
    let staleDone = false;
    server.script = (req, res) => {
      if (req.previousOnConnection > 0 && !staleDone) {
        staleDone = true;
        return void req.socket.destroy();
      }
      ok(res);
    };
    client = clientFor(server);
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push(await client.send('InvoiceEarned', invoice(`inv-${i}`)));

    expect(staleDone).toBe(true);
    const retried = results.filter((r) => r.attempts === 2);
    expect(retried).toHaveLength(1);
    const attemptsOfRetried = server.requests.filter(
      (r) => JSON.parse(r.body.toString()).eventId === retried[0]?.eventId,
    );
    expect(attemptsOfRetried).toHaveLength(2);
    expect(attemptsOfRetried[0]?.previousOnConnection).toBeGreaterThan(0);
    expect(attemptsOfRetried[1]?.connection).not.toBe(attemptsOfRetried[0]?.connection);
  });

  it('sends on a new socket after the server closed an idle kept-alive one', async () => {
    server.script = (req, res) => {
      ok(res);
      res.on('finish', () => req.socket.end());
    };
    client = clientFor(server);
    await client.send('InvoiceEarned', invoice('inv-1'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(client.send('InvoiceEarned', invoice('inv-2'))).resolves.toMatchObject({ status: 200 });
    expect(server.connections).toBe(2);
  });

  it('gives up with a retryable LoyaltyNetworkError carrying the cause when the service refuses connections', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    client = clientFor(server, {
      baseUrl: `http://127.0.0.1:${port}`,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    });

    const error = (await client
      .send('InvoiceEarned', invoice())
      .catch((err: unknown) => err)) as LoyaltyNetworkError;
    expect(error).toBeInstanceOf(LoyaltyNetworkError);
    expect(error).toMatchObject({ code: 'NETWORK_ERROR', retryable: true, attempts: 2 });
    expect(error.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.cause).toBeInstanceOf(Error);
  });
});

describe('an attempt still waiting for a free socket', () => {
  const hangFirst = (_req: unknown, res: Parameters<typeof ok>[0], i: number) =>
    i === 0 ? undefined : ok(res);
  const untilReceived = async (count: number) => {
    while (server.requests.length < count) await nextTurn();
  };

  it('times out with the attempt ahead of it, and both are retried', async () => {
    // Every send's first attempt gets no answer, wherever it arrives; its retries are answered.
    const eventOf = (req: { body: Buffer }) => JSON.parse(req.body.toString()).eventId as string;
    server.script = (req, res) => {
      const arrivals = server.requests.filter((other) => eventOf(other) === eventOf(req));
      return arrivals.length === 1 ? undefined : ok(res);
    };
    const retries: { eventId: string | undefined; code: string }[] = [];
    client = clientFor(server, {
      connections: 1,
      timeoutMs: 500,
      hooks: { onRetry: (e) => void retries.push({ eventId: e.eventId, code: e.code }) },
    });
    const sends = [
      client.send('InvoiceEarned', invoice('inv-1')),
      client.send('InvoiceEarned', invoice('inv-2')),
    ];
    // The second send waits for the socket the first holds. Its timer covers that wait, so its
    // first attempt ends about when the first's does (500 ms in), whether or not it reached the
    // server in between. Had its timer started only once the socket was free, its first attempt
    // would end a whole timeout later (1,000 ms in): by this mark, both have been retried.
    const atMark = await new Promise<string[]>((resolve) =>
      setTimeout(() => resolve(retries.map((retry) => retry.eventId ?? '')), 850),
    );
    const results = await Promise.all(sends);
    expect(new Set(atMark)).toEqual(new Set(results.map((result) => result.eventId)));
    // A loaded machine may time out a retry too, so every attempt beyond the first is a TIMEOUT
    // retry, and each send needed at least two.
    for (const result of results) {
      expect(result.attempts).toBeGreaterThanOrEqual(2);
      const own = retries.filter((retry) => retry.eventId === result.eventId);
      expect(own.map((retry) => retry.code)).toEqual(Array(result.attempts - 1).fill('TIMEOUT'));
    }
  });

  it("rejects with the caller's reason as soon as the caller aborts, without ever being sent", async () => {
    server.script = hangFirst;
    // The attempt ahead holds the only socket for longer than the test may run.
    client = clientFor(server, { connections: 1, timeoutMs: 60_000 });
    const ahead = client.send('InvoiceEarned', invoice('inv-1')).catch((err: unknown) => err);
    const controller = new AbortController();
    const waiting = client.send('InvoiceEarned', invoice('inv-2'), { signal: controller.signal });
    await untilReceived(1);
    const reason = new Error('till closing');
    controller.abort(reason);

    await expect(waiting).rejects.toBe(reason);
    await client.close();
    expect(await ahead).toBeInstanceOf(LoyaltyClientClosedError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('connection reuse', () => {
  it('sends many events over the same kept-alive connections', async () => {
    client = clientFor(server);
    for (let i = 0; i < 20; i += 1) await client.send('InvoiceEarned', invoice(`inv-${i}`));
    expect(server.requests).toHaveLength(20);
    // undici marks a socket free a microtask after the body ends, so back-to-back sends may
    // alternate between two sockets; what matters is that they are not one socket per request.
    expect(server.connections).toBeLessThanOrEqual(2);
  });

  it('opens no more sockets than the connections option allows', async () => {
    client = clientFor(server, { connections: 2 });
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => client.send('InvoiceEarned', invoice(`inv-${i}`))),
    );
    expect(server.connections).toBeLessThanOrEqual(2);
  });
});

describe('AbortSignal', () => {
  it('rejects with the signal reason during a backoff wait, without another attempt', async () => {
    server.script = (_req, res) => fail(res, 503, 'INTEGRATION_PAUSED', { 'retry-after': '60' });
    const controller = new AbortController();
    const reason = new Error('till closing');
    client = clientFor(server, { hooks: { onRetry: () => controller.abort(reason) } });
    await expect(client.send('InvoiceEarned', invoice(), { signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects with an AbortError during an attempt when aborted without a reason', async () => {
    server.script = () => undefined;
    const controller = new AbortController();
    client = clientFor(server, { hooks: { onRequest: () => setTimeout(() => controller.abort(), 20) } });
    const error = await client
      .send('InvoiceEarned', invoice(), { signal: controller.signal })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
  });

  it('sends nothing when the signal is already aborted', async () => {
    client = clientFor(server);
    await expect(client.checkConnection({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(server.requests).toHaveLength(0);
  });
});
