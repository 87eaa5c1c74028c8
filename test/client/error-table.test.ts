import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_CODES, type ErrorCode, LoyaltyApiError } from 'loyalty-partner-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { fail, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

const README = new URL('../../docs/sending-and-retries.md', import.meta.url);
const BEGIN = '<!-- error-table: generated from ERROR_CODES by test/client/error-table.test.ts -->';
const END = '<!-- /error-table -->';
const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** What the client did when a real server answered every attempt with one code. */
interface Observed {
  attempts: number;
  error: LoyaltyApiError;
}

let server: ScriptedServer;
const observed = new Map<ErrorCode, Observed>();

beforeAll(async () => {
  // The invoice id names the code to answer with; the message ends with a period, as the
  // service's do, so a message that appends to it shows whether periods double.
  server = await startScriptedServer((req, res) => {
    const code = JSON.parse(req.body.toString()).payload.externalInvoiceId as ErrorCode;
    res.setHeader('content-type', 'application/json');
    fail(res, ERROR_CODES[code].status, code, { date: new Date().toUTCString() });
  });
  const client = clientFor(server);
  for (const code of CODES) {
    const before = server.requests.length;
    const error = await client.send('InvoiceEarned', invoice(code)).catch((err: unknown) => err);
    observed.set(code, { attempts: server.requests.length - before, error: error as LoyaltyApiError });
  }
  await client.close();
});
afterAll(() => server.close());

/** The README's words for what the client was seen doing. */
function behaviour({ attempts, error }: Observed): string {
  if (attempts > 2 && error.retryable)
    return 'retries with backoff, same bytes; then `LoyaltyApiError`, `retryable: true`';
  if (attempts === 2 && !error.retryable)
    return 'learns the clock offset from `Date`, re-sends once; then `retryable: false`';
  if (attempts === 1 && !error.retryable) return '`LoyaltyApiError` at once, `retryable: false`';
  return `unexpected: ${attempts} attempts, retryable ${error.retryable}`;
}

function renderErrorTable(): string {
  const rows = CODES.map((code) => {
    const info = ERROR_CODES[code];
    const status = `${info.status}${'planned' in info && info.planned ? ' (planned)' : ''}`;
    return `| \`${code}\` | ${status} | ${behaviour(observed.get(code)!)} | \`${info.action}\`: ${info.remedy} |`;
  });
  return [
    BEGIN,
    '| code | status | what the SDK does | what you do (`err.action`) |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

describe('the client facing each error code of the catalogue', () => {
  it.each(CODES)('%s: rejects with a LoyaltyApiError carrying the code, status and action', (code) => {
    const { error } = observed.get(code)!;
    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect(error).toMatchObject({ code, status: ERROR_CODES[code].status, action: ERROR_CODES[code].action });
  });

  it('retries exactly the retryable codes, with the same bytes, up to maxAttempts (6)', () => {
    const retried = CODES.filter((code) => observed.get(code)!.attempts === 6);
    expect(retried.sort()).toEqual(CODES.filter((code) => ERROR_CODES[code].retryable).sort());
    for (const code of retried) expect(observed.get(code)!.error.retryable).toBe(true);
  });

  it('re-sends SIGNATURE_EXPIRED once after learning the clock, and stops every other code at once', () => {
    for (const code of CODES.filter((c) => !ERROR_CODES[c].retryable)) {
      expect([code, observed.get(code)!.attempts]).toEqual([code, code === 'SIGNATURE_EXPIRED' ? 2 : 1]);
      expect(observed.get(code)!.error.retryable).toBe(false);
    }
  });

  it('writes messages without a doubled period, ending with the correlation id', () => {
    for (const code of CODES) {
      const { message } = observed.get(code)!.error;
      expect(message).not.toMatch(/\.\./);
      expect(message).toMatch(new RegExp(`scripted ${code}\\. .*correlationId corr-${code}$`));
    }
  });
});

describe('README retry table', () => {
  it('is what the client was seen doing (UPDATE_README=1 rewrites it)', () => {
    let readme = readFileSync(README, 'utf8');
    const start = readme.indexOf(BEGIN);
    const end = readme.indexOf(END);
    if (process.env.UPDATE_README === '1' && start >= 0 && end > start) {
      readme = readme.slice(0, start) + renderErrorTable() + readme.slice(end + END.length);
      writeFileSync(README, readme);
    }
    expect(readme).toContain(renderErrorTable());
  });
});
