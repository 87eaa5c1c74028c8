import { request } from 'node:http';
import { createEnvelope } from 'loyalty-partner-sdk';
import { createEmulator, samplePayload, signTestHeader } from 'loyalty-partner-sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';

// Framing the node server adds for the connection; emulator.fetch has no connection to describe.
const FRAMING = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function answer(response: Response) {
  const headers = [...response.headers].filter(([name]) => !FRAMING.has(name));
  return { status: response.status, headers, body: await response.text() };
}

const pairs = (raw: string[]) =>
  raw.flatMap((item, i) => (i % 2 === 0 ? [[item.toLowerCase(), raw[i + 1] ?? ''] as [string, string]] : []));

// node:http sends the path as written (fetch would normalise it first), as a partner's own
// HTTP client may.
function overHttp(origin: string, path: string, init: RequestInit, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: [string, string][]; body: string }>((resolve, reject) => {
    const req = request(`${origin}${path}`, { method: init.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          // In wire order: the node server writes them sorted by name, as they always were.
          headers: pairs(res.rawHeaders).filter(([name]) => !FRAMING.has(name)),
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(init.body as string | undefined);
  });
}

describe('one request shape behind the node server and emulator.fetch', () => {
  const emulator = createEmulator({ clock: 'manual', startTime: new Date('2026-11-20T09:00:00Z') });
  const merchant = emulator.createMerchant({ autoConfirmBranches: true });
  afterAll(() => emulator.close());

  const signed = (body: string) => ({
    'content-type': 'application/json',
    'x-api-key': merchant.apiKey,
    'x-signature': signTestHeader(body, merchant.signingSecret, { timestamp: emulator.now() }),
  });

  // The same request to both transports, under one correlation id: the answers must be equal.
  async function both(path: string, init: RequestInit = {}) {
    const { url } = await emulator.listen();
    const headers = { ...(init.headers as Record<string, string>), 'x-correlation-id': 'corr-same' };
    const http = await overHttp(url, path, init, headers);
    const inProcess = await answer(await emulator.fetch(`http://loyalty.test${path}`, { ...init, headers }));
    return { overHttp: http, inProcess };
  }

  it('answers a processed event, its replay and a refusal alike over HTTP and in process', async () => {
    const branch = JSON.stringify(createEnvelope('BranchSynced', samplePayload('BranchSynced')));
    const first = await both('/api/partner/v1/events', {
      method: 'POST',
      headers: signed(branch),
      body: branch,
    });
    expect(first.overHttp).toMatchObject({ status: 200 });
    // The in-process request was a replay of the one over HTTP: same bytes, same correlation id.
    expect(first.inProcess).toEqual(first.overHttp);
    const unsigned = await both('/api/partner/v1/events', {
      method: 'POST',
      headers: { 'x-api-key': merchant.apiKey },
      body: branch,
    });
    expect(unsigned.overHttp.status).toBe(401);
    expect(unsigned.inProcess).toEqual(unsigned.overHttp);
  });

  it('reads the query and normalises the path over HTTP as the URL parser does in process', async () => {
    const lookup = await both('/api/partner/v1/customers/lookup?phone=%2B966500000001', {
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(lookup.overHttp).toMatchObject({ status: 200, body: '{"customer":null,"balance":null}' });
    expect(lookup.inProcess).toEqual(lookup.overHttp);
    const dotted = await both('/api/partner/v1/x/../connection', {
      headers: { 'x-api-key': merchant.apiKey },
    });
    expect(dotted.overHttp.status).toBe(200);
    expect(dotted.inProcess).toEqual(dotted.overHttp);
    const missing = await both('/api/partner/v1/%70oints');
    expect(JSON.parse(missing.overHttp.body)).toMatchObject({ code: 'NOT_FOUND' });
    expect(missing.inProcess).toEqual(missing.overHttp);
  });

  it('serves the control interface through the same shape', async () => {
    const { overHttp, inProcess } = await both(`/__emulator/merchants/${merchant.tenantId}/pause`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(overHttp).toMatchObject({ status: 200 });
    expect(JSON.parse(overHttp.body)).toMatchObject({ ok: true, merchant: { paused: true } });
    expect(inProcess.status).toBe(200);
  });
});
