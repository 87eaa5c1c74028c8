import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * A host application's process, as it runs: its own zod (`zod/mini`, whose configuration lives on
 * `globalThis` and is shared by every copy of zod, the SDK's bundled one included), then every
 * entry of the built package. A child process, because the test worker runs other files first
 * and may hold a zod configured by one of them.
 */
const HOST = `
import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
const before = JSON.stringify({ ...globalConfig, localeError: typeof globalConfig.localeError });
const hostSchema = z.object({ n: z.number() });
const messageBefore = hostSchema.safeParse({ n: 'x' }).error?.issues[0]?.message;
const sdk = await import('loyalty-partner-sdk');
await Promise.all(['signature', 'webhooks', 'outbox', 'testing'].map((entry) => import('loyalty-partner-sdk/' + entry)));
let threw = false;
try { sdk.createEnvelope('BranchSynced', { externalBranchId: 1 }); } catch { threw = true; }
console.log(JSON.stringify({
  threw,
  before,
  after: JSON.stringify({ ...globalConfig, localeError: typeof globalConfig.localeError }),
  localeError: typeof globalConfig.localeError,
  messageBefore,
  messageAfter: hostSchema.safeParse({ n: 'x' }).error?.issues[0]?.message,
}));
`;

describe("the host application's zod", () => {
  it('is left untouched by importing every entry of the SDK: no global config, the same messages', () => {
    expect(existsSync('dist/index.node.js'), 'dist/ is missing: run `npm run build` first').toBe(true);
    const seen = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', HOST], { encoding: 'utf8' }),
    );
    // Validating through the SDK must not install anything either.
    expect(seen.threw).toBe(true);
    expect(seen.after).toBe(seen.before);
    expect(seen.localeError).toBe('undefined');
    expect(seen.messageAfter).toBe(seen.messageBefore);
  });

  it('does not stop the SDK from explaining, in its own words, what zod/mini leaves generic', async () => {
    const { createEnvelope: parsePayload } = await import('loyalty-partner-sdk');
    expect(() =>
      parsePayload('InvoiceEarned', {
        externalInvoiceId: 'i',
        externalCustomerId: 'c',
        externalBranchId: 'b',
        subtotalAfterDiscountBeforeVat: 1,
        earnType: 'Miles' as never,
        channel: 'Pos',
      }),
    ).toThrow("payload.earnType: must be one of 'Points', 'Stamps'");
    expect(() => parsePayload('BranchSynced', 'not an object' as never)).toThrow('must be an object');
  });
});
