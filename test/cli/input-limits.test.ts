import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from './run.js';

const SECRET = 'whsec_cli_limits_secret';
const body = '{"eventType":"IntegrationStatusChanged","payload":{"status":"Enabled"}}';
const hmac = (secret: string, t: number) => createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
const dir = mkdtempSync(join(tmpdir(), 'cli-limits-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const emulator = createEmulator();
afterAll(() => emulator.close());

describe('send, sign and verify read a bounded input', () => {
  it('sign stops reading /dev/zero past 1 MiB with a clear error and exit 2', async () => {
    const result = await cli(['sign', '/dev/zero'], { env: { LOYALTY_SIGNING_SECRET: SECRET } });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: /dev/zero is larger than 1,048,576 bytes: pass --max-bytes <bytes> to read more\n',
    });
  });

  it('verify and send stop at their --max-bytes, and send posts nothing', async () => {
    const verify = await cli(['verify', '--header', 't=1,v1=00', '--max-bytes', '10', '-'], {
      env: { LOYALTY_SIGNING_SECRET: SECRET },
      stdin: body,
    });
    expect(verify.code).toBe(2);
    expect(verify.stderr).toBe(
      'error: standard input is larger than 10 bytes: pass --max-bytes <bytes> to read more\n',
    );

    const { url } = await emulator.listen();
    const merchant = emulator.createMerchant({ autoConfirmBranches: true });
    const env = {
      LOYALTY_BASE_URL: url,
      LOYALTY_API_KEY: merchant.apiKey,
      LOYALTY_SIGNING_SECRET: merchant.signingSecret,
    };
    const sent = await cli(['send', 'BranchSynced', '--payload', '/dev/zero'], { env });
    expect(sent.code).toBe(2);
    expect(sent.stderr).toContain('/dev/zero is larger than 1,048,576 bytes');
    const small = await cli(['send', 'BranchSynced', '--payload', '-', '--max-bytes', '5'], {
      env,
      stdin: JSON.stringify(samplePayload('BranchSynced')),
    });
    expect(small.code).toBe(2);
    expect(emulator.requests({ tenantId: merchant.tenantId })).toEqual([]);
  });
});

describe('a --secret-file is read as written, never with stray whitespace', () => {
  it('trims the final line break, LF or CRLF, and signs with the secret itself', async () => {
    for (const text of [`${SECRET}\n`, `${SECRET}\r\n`, SECRET]) {
      const result = await cli(['sign', '--secret-file', file('secret', text), '--timestamp', '7', '-'], {
        stdin: body,
      });
      expect(result).toEqual({ code: 0, stdout: `t=7,v1=${hmac(SECRET, 7)}\n`, stderr: '' });
    }
  });

  it('refuses a trailing space, a tab or a lone carriage return around a secret, naming the line, exit 2', async () => {
    for (const [text, line] of [
      [`${SECRET} \n`, 1],
      [`whsec_other\n\t${SECRET}\n`, 2],
      [`${SECRET}\r`, 1],
    ] as const) {
      const path = file('spaced', text);
      const result = await cli(['sign', '--secret-file', path, '-'], { stdin: body });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: line ${line} of ${path} has whitespace before or after the secret (a space, a tab or a carriage return): remove it, it would change every signature\n`,
      });
    }
  });

  it('refuses a secret file past 64 KiB', async () => {
    const result = await cli(['verify', '--secret-file', '/dev/zero', '--header', 't=1,v1=00', '-'], {
      stdin: body,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: /dev/zero is larger than 65,536 bytes: is it the right file?\n');
  });
});
