import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SignatureVerificationError, verifySignature } from 'loyalty-partner-sdk/signature';
import { receiverCases, receiverVectors } from 'loyalty-partner-sdk/testing';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/receiver-vectors.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/testing.js', import.meta.url));
const vectors = receiverVectors();

function verdictOf(vector: (typeof vectors)[number]): string {
  const bytes = Buffer.from(vector.request.bodyBase64, 'base64');
  try {
    verifySignature(bytes, vector.request.headers['x-signature'], vector.secret, { now: vector.now });
  } catch (err) {
    if (err instanceof SignatureVerificationError) return err.code;
    throw err;
  }
  try {
    JSON.parse(bytes.toString('utf8'));
    return 'authentic';
  } catch {
    return 'not JSON';
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the published receiver vectors', () => {
  it('hold one vector per case of the kit, with the body as text and as the same bytes in base64', () => {
    expect(vectors.map((vector) => vector.id)).toEqual(receiverCases.map((item) => item.id));
    for (const vector of vectors) {
      expect(Buffer.from(vector.request.bodyBase64, 'base64').toString('utf8')).toBe(vector.request.body);
    }
  });

  it.each([
    ['v1-first', 0],
    ['v1-middle', 1],
    ['v1-last', 2],
  ] as const)(
    '%s: the one v1 that matches is at position %i of three, the others match no secret',
    (id, at) => {
      const vector = vectors.find((item) => item.id === id)!;
      const header = vector.request.headers['x-signature']!;
      const t = header.split(',')[0]!;
      const candidates = header.split(',').filter((part) => part.startsWith('v1='));
      expect(candidates).toHaveLength(3);
      const matching = candidates.map((v1) => {
        try {
          verifySignature(vector.request.body, `${t},${v1}`, vector.secret, { now: vector.now });
          return true;
        } catch {
          return false;
        }
      });
      expect(matching).toEqual([0, 1, 2].map((index) => index === at));
    },
  );

  it('v1-among-other-schemes: the matching v1 stands between v0= and v2= parts', () => {
    const vector = vectors.find((item) => item.id === 'v1-among-other-schemes')!;
    expect(vector.request.headers['x-signature']).toMatch(
      /^v0=[0-9a-f]{64},t=\d+,v2=[0-9a-f]{64},v1=[0-9a-f]{64},v0=[0-9a-f]{64}$/,
    );
  });

  it.each(vectors.map((vector) => [vector.id, vector] as const))(
    "%s: verifySignature at the vector's now agrees with its expected answer",
    (_id, vector) => {
      const expected = {
        accept: 'authentic',
        'reject-signature': 'INVALID_SIGNATURE',
        'reject-expired': 'SIGNATURE_EXPIRED',
        'reject-payload': 'not JSON',
      }[vector.expected.verdict];
      expect(verdictOf(vector)).toBe(expected);
    },
  );

  it("are answered by the SDK's own receiver, its clock set to each vector's now, as they say", async () => {
    for (const vector of vectors) {
      vi.useFakeTimers({ toFake: ['Date'], now: vector.now * 1000 });
      const receiver = createReceiver({
        secrets: (tenantId) => (tenantId === vector.tenantId ? [vector.secret] : undefined),
        handlers: {},
      });
      const answer = await receiver.handle({
        rawBody: Buffer.from(vector.request.bodyBase64, 'base64'),
        headers: vector.request.headers,
      });
      const status = vector.expected.status === '2xx' ? 200 : vector.expected.status === '401' ? 401 : 400;
      expect([vector.id, answer.status]).toEqual([vector.id, status]);
      if (vector.expected.code) expect(JSON.parse(String(answer.body)).code).toBe(vector.expected.code);
      vi.useRealTimers();
    }
  });

  it('are written by scripts/receiver-vectors.mjs from the build, one file per case', async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: build first (npm run build)`);
    const out = await mkdtemp(join(tmpdir(), 'vectors-'));
    try {
      await promisify(execFile)(process.execPath, [SCRIPT, '--out', out]);
      const files = (await readdir(out)).sort();
      expect(files).toEqual(vectors.map((vector) => `${vector.id}.json`).sort());
      for (const vector of vectors) {
        expect(JSON.parse(await readFile(join(out, `${vector.id}.json`), 'utf8'))).toEqual(vector);
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
