import { request } from 'node:http';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../../cli/run.js';

const emulator = createEmulator();
let url: string;
beforeAll(async () => {
  ({ url } = await emulator.listen());
});
afterAll(() => emulator.close());

/** A raw HTTP request, so the test sets `Host` and `Origin` as a browser or a rebinding page would. */
function send(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the control interface refuses what a foreign web page could send it', () => {
  it('refuses a cross-origin text/plain POST with 415 and leaves the merchant unpaused', async () => {
    const { tenantId } = emulator.createMerchant({ tenantId: 'guard-text' });
    const answer = await send(`/__emulator/merchants/${tenantId}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(emulator.merchant(tenantId).paused).toBe(false);
  });

  it('refuses a POST from another Origin with 403, JSON or not, and changes no receiver URL', async () => {
    const { tenantId } = emulator.createMerchant({ tenantId: 'guard-origin' });
    const before = emulator.merchant(tenantId).receiverUrl;
    const answer = await send(`/__emulator/merchants/${tenantId}/receiver-url`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
      body: JSON.stringify({ url: 'http://evil.example/steal' }),
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'FORBIDDEN_ORIGIN' });
    expect(emulator.merchant(tenantId).receiverUrl).toBe(before);
  });

  it('refuses a foreign Host name (DNS rebinding) with 403, for the state and for creating a merchant', async () => {
    const port = new URL(url).port;
    const state = await send('/__emulator/state', { headers: { host: `rebind.evil.example:${port}` } });
    expect(state.status).toBe(403);
    expect(JSON.parse(state.body)).toMatchObject({ code: 'FORBIDDEN_HOST' });
    const created = await send('/__emulator/merchants', {
      method: 'POST',
      headers: {
        host: `rebind.evil.example:${port}`,
        origin: `http://rebind.evil.example:${port}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ tenantId: 'guard-rebound' }),
    });
    expect(created.status).toBe(403);
    expect(() => emulator.merchant('guard-rebound')).toThrow();
  });

  it('answers its own page, localhost and listed names, and the CLI control commands still work', async () => {
    const { tenantId } = emulator.createMerchant({ tenantId: 'guard-own' });
    const port = new URL(url).port;
    const own = await send(`/__emulator/merchants/${tenantId}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: url, host: new URL(url).host },
    });
    expect(own.status).toBe(200);
    expect(emulator.merchant(tenantId).paused).toBe(true);
    expect((await send('/__emulator/state', { headers: { host: `localhost:${port}` } })).status).toBe(200);
    const resumed = await cli(['merchant', 'resume', '--url', url, '--tenant-id', tenantId]);
    expect(resumed.code).toBe(0);
    expect(emulator.merchant(tenantId).paused).toBe(false);

    const named = createEmulator();
    try {
      const listed = await named.listen({ allowedHosts: ['emulator'] });
      const namedPort = new URL(listed.url).port;
      const state = (host: string) =>
        new Promise<number>((resolve, reject) => {
          request(`${listed.url}/__emulator/state`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          })
            .on('error', reject)
            .end();
        });
      expect(await state(`emulator:${namedPort}`)).toBe(200);
      expect(await state(`other:${namedPort}`)).toBe(403);
    } finally {
      await named.close();
    }
  });
});
