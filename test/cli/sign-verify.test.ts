import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './run.js';

const SECRET = 'whsec_cli_test_secret';
const body = '{"eventType":"IntegrationStatusChanged","payload":{"status":"Enabled"}}';
const hmac = (secret: string, t: number) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('loyalty-partner sign', () => {
  it('prints the header an independent HMAC computes, reading the body from stdin', async () => {
    const result = await cli(['sign', '--timestamp', '1763630000', '-'], {
      env: { LOYALTY_SIGNING_SECRET: SECRET },
      stdin: body,
    });
    expect(result).toEqual({ code: 0, stdout: `t=1763630000,v1=${hmac(SECRET, 1763630000)}\n`, stderr: '' });
  });

  it('signs with every secret of a --secret-file, in order, and never prints them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    writeFileSync(join(dir, 'secrets'), 'whsec_new\nwhsec_old\n');
    writeFileSync(join(dir, 'body.json'), body);
    const result = await cli([
      'sign',
      '--secret-file',
      join(dir, 'secrets'),
      '--timestamp',
      '5',
      join(dir, 'body.json'),
    ]);
    expect(result.stdout).toBe(`t=5,v1=${hmac('whsec_new', 5)},v1=${hmac('whsec_old', 5)}\n`);
    expect(result.stdout + result.stderr).not.toMatch(/whsec_/);
  });

  it('explains in one line that the secret is missing, with exit code 2', async () => {
    const result = await cli(['sign', '-'], { stdin: body });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'error: set LOYALTY_SIGNING_SECRET to the signing secret, or pass --secret-file <path>\n',
    );
  });

  it('refuses an unknown flag and a malformed timestamp with exit code 2', async () => {
    const env = { LOYALTY_SIGNING_SECRET: SECRET };
    expect((await cli(['sign', '--secret', 'x', '-'], { env, stdin: body })).code).toBe(2);
    const bad = await cli(['sign', '--timestamp', '1e9', '-'], { env, stdin: body });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timestamp must be a whole number');
  });
});

describe('loyalty-partner verify', () => {
  const env = { LOYALTY_SIGNING_SECRET: SECRET };
  const header = `t=1763630000,v1=${hmac(SECRET, 1763630000)}`;

  it('says which secret matched and how old the signature is', async () => {
    const result = await cli(['verify', '--header', header, '--now', '1763630012', '-'], {
      env,
      stdin: body,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'valid: secretIndex 0 (counting from 0) of 1 secrets matched; signed at t=1763630000 (12 s before now)\n',
    );
  });

  it('reports a tampered body as INVALID_SIGNATURE no_match with exit code 1, without the expected signature', async () => {
    const result = await cli(['verify', '--header', header, '--now', '1763630000', '-'], {
      env,
      stdin: `${body} `,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid: INVALID_SIGNATURE \(no_match\): /);
    expect(result.stdout).not.toContain(hmac(SECRET, 1763630000).slice(0, 16));
    const expected = createHmac('sha256', SECRET).update(`1763630000.${body} `).digest('hex');
    expect(result.stdout).not.toContain(expected.slice(0, 16));
    expect(result.stdout).not.toContain(SECRET);
  });

  it('reports an authentic but stale signature as SIGNATURE_EXPIRED', async () => {
    const result = await cli(['verify', '--header', header, '--now', '1763631000', '-'], {
      env,
      stdin: body,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid: SIGNATURE_EXPIRED \(timestamp_too_old\)/);
  });

  it('colours its verdict on a terminal, and not when NO_COLOR is set', async () => {
    const args = ['verify', '--header', header, '--now', '1763630000', '-'];
    expect((await cli(args, { env, stdin: body, tty: true })).stdout).toContain('\u001b[32mvalid');
    expect((await cli(args, { env: { ...env, NO_COLOR: '1' }, stdin: body, tty: true })).stdout).toMatch(
      /^valid/,
    );
  });

  it('requires --header', async () => {
    const result = await cli(['verify', '-'], { env, stdin: body });
    expect(result).toMatchObject({
      code: 2,
      stderr: 'error: verify: --header <X-Signature value> is required\n',
    });
  });
});

describe('blank secrets', () => {
  it('verify --secret-file refuses a whitespace-only line with a clear message and exit 2, even when a signature made under it is given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    writeFileSync(join(dir, 'secrets'), `${SECRET}\n   \n`);
    const forged = `t=1763630000,v1=${hmac('   ', 1763630000)}`;
    const result = await cli(
      ['verify', '--secret-file', join(dir, 'secrets'), '--header', forged, '--now', '1763630000', '-'],
      { stdin: body },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: line 2 of ${join(dir, 'secrets')} is blank (whitespace only): a secret must have other characters; remove the line\n`,
    });
  });

  it('sign refuses a blank LOYALTY_SIGNING_SECRET as a missing one', async () => {
    const result = await cli(['sign', '-'], { env: { LOYALTY_SIGNING_SECRET: ' \t' }, stdin: body });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('set LOYALTY_SIGNING_SECRET to the signing secret');
  });
});

describe('loyalty-partner', () => {
  it('lists its commands and exit codes with --help', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/sign\s+print the X-Signature header/);
    expect(result.stdout).toContain('NO_COLOR');
  });

  it('prints help on stderr and exits 2 without a command, and names an unknown command', async () => {
    expect((await cli([])).code).toBe(2);
    expect(await cli(['frobnicate'])).toMatchObject({
      code: 2,
      stderr: 'error: unknown command "frobnicate" (see loyalty-partner --help)\n',
    });
  });

  it('has --help for every command', async () => {
    for (const name of ['sign', 'verify']) {
      const result = await cli([name, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^Usage: loyalty-partner ${name}`));
    }
  });
});
