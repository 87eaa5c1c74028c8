import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_DAY } from '../../src/cli/demo/demo-day.js';
import { runBin, startBin } from './bin.js';
import { cli } from './run.js';

const STEPS = DEMO_DAY.map((step) => step.title);

describe('loyalty-partner demo (the built bin)', () => {
  it('--ui keeps the emulator running after the day, serving its dashboard until stopped', async () => {
    const bin = startBin(['demo', '--ui']);
    const [, dashboard = ''] = await bin.waitFor(/Dashboard: (http:\/\/\S+\/__emulator\/)/);
    expect(bin.stdout()).not.toContain('FAIL');
    const page = await fetch(dashboard);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>Loyalty emulator</title>');
    const state = (await (await fetch(`${dashboard}state`)).json()) as {
      merchants: { connection: string }[];
    };
    expect(state.merchants.map((m) => m.connection)).toEqual(['Active']);
    bin.child.kill('SIGINT');
    const { code, stdout } = await bin.exited;
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /SIGINT: stopping\n\nPASS all \d+ steps behaved as expected; everything is closed\n$/,
    );
  });

  it('plays every step of the POS day, each as expected, and exits 0 with nothing left running', async () => {
    const { code, signal, stdout, stderr } = await runBin(['demo']);
    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    for (const [index, title] of STEPS.entries()) {
      expect(stdout).toContain(`${String(index + 1).padStart(2)}. PASS ${title}\n`);
    }
    expect(stdout).not.toContain('FAIL');
    expect(stdout).toContain(`PASS all ${STEPS.length} steps behaved as expected`);
  });

  it('shows the outcomes a partner needs to see: balances, the retry, the replay, the verified webhook', async () => {
    const { stdout } = await runBin(['demo']);
    expect(stdout).toContain('+8 points; balance cust-1001: 8 points');
    expect(stdout).toContain('+1 stamp; balance cust-1001: 8 points, card-coffee 1 stamp');
    expect(stdout).toMatch(
      /attempt 1 -> 503 CONCURRENCY_CONFLICT; onRetry: attempt 2 in \d+ ms, same eventId/,
    );
    expect(stdout).toMatch(/sendEnvelope, eventId \S+ -> 200, the first answer replayed/);
    expect(stdout).toContain('client.send -> LoyaltyValidationError WRONG_EVENT_DIRECTION; nothing was sent');
    expect(stdout).toContain('posted raw: 400 WRONG_EVENT_DIRECTION');
    expect(stdout).toMatch(
      /X-Signature verified \(secretIndex 0, t=\d+\); the LoyaltyRuleChanged handler ran/,
    );
    expect(stdout).toMatch(/attempt 2 -> 503 INTEGRATION_PAUSED[^\n]*\n\s+the merchant resumes/);
    expect(stdout).toContain('balance cust-1001: 22 points, card-coffee 1 stamp');
  });

  it('prints no API key and no signing secret', async () => {
    const { stdout, stderr } = await runBin(['demo']);
    expect(stdout + stderr).not.toMatch(/lk_(test|live)_|whsec_/);
  });

  it('is plain ASCII without colour (NO_COLOR), marks included', async () => {
    const { code, stdout } = await runBin(['demo'], { env: { NO_COLOR: '1' } });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^[\x20-\x7e\n]*$/);
  });
});

describe('loyalty-partner demo (in process)', () => {
  it('marks steps with a coloured check on a terminal, and with PASS when NO_COLOR is set', async () => {
    const coloured = await cli(['demo'], { tty: true });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain(`\u001b[32m\u2713\u001b[39m \u001b[1m${STEPS[0]}`);
    const plain = await cli(['demo'], { tty: true, env: { NO_COLOR: '1' } });
    expect(plain.stdout).toContain(` 1. PASS ${STEPS[0]}\n`);
    expect(plain.stdout).not.toContain('\u001b[');
  });
});

describe('the demo excerpt of docs/emulator-and-cli.md', () => {
  it('shows the steps under their current numbers and titles', () => {
    const guide = readFileSync(new URL('../../docs/emulator-and-cli.md', import.meta.url), 'utf8');
    const excerpt = guide.slice(guide.indexOf('## What the demo shows'));
    const shown = [...excerpt.matchAll(/^ ?(\d+)\. PASS (.+)$/gm)].map(([, n, title]) => [Number(n), title]);
    expect(shown.length).toBeGreaterThan(5);
    for (const [n, title] of shown) expect(title).toBe(STEPS[(n as number) - 1]);
  });
});
