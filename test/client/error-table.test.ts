import { readFileSync, writeFileSync } from 'node:fs';
import { ERROR_CODES, type ErrorCode } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';

const README = new URL('../../README.md', import.meta.url);
const BEGIN = '<!-- error-table: generated from ERROR_CODES by test/client/error-table.test.ts -->';
const END = '<!-- /error-table -->';

/** What the client does with each code, derived from the same catalogue fields the retry policy reads. */
function sdkBehaviour(code: ErrorCode): string {
  const info = ERROR_CODES[code];
  if (info.retryable) return 'retries with backoff, same bytes; then `LoyaltyApiError`, `retryable: true`';
  if (info.action === 'check-clock')
    return 'learns the clock offset from `Date`, re-sends once; then `retryable: false`';
  return '`LoyaltyApiError` at once, `retryable: false`';
}

/** The README's retry table, rendered from the contract's error catalogue. */
function renderErrorTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const info = ERROR_CODES[code];
    const status = `${info.status}${'planned' in info && info.planned ? ' (planned)' : ''}`;
    return `| \`${code}\` | ${status} | ${sdkBehaviour(code)} | \`${info.action}\`: ${info.remedy} |`;
  });
  return [
    BEGIN,
    '| code | status | what the SDK does | what you do (`err.action`) |',
    '|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

describe('README retry table', () => {
  it('is exactly the rendering of ERROR_CODES (UPDATE_README=1 rewrites it)', () => {
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
