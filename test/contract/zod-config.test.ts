import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';

describe("the host application's zod", () => {
  it('is left untouched by importing every entry of the SDK: no global config, the same messages', async () => {
    const before = { ...globalConfig };
    const hostSchema = z.object({ n: z.number() });
    const messageBefore = hostSchema.safeParse({ n: 'x' }).error?.issues[0]?.message;

    const sdk = await import('loyalty-partner-sdk');
    await Promise.all([
      import('loyalty-partner-sdk/signature'),
      import('loyalty-partner-sdk/webhooks'),
      import('loyalty-partner-sdk/outbox'),
      import('loyalty-partner-sdk/testing'),
    ]);
    // Validating through the SDK must not install anything either.
    expect(() => sdk.createEnvelope('BranchSynced', { externalBranchId: 1 } as never)).toThrow();

    expect({ ...globalConfig }).toEqual(before);
    expect(globalConfig.localeError).toBeUndefined();
    expect(hostSchema.safeParse({ n: 'x' }).error?.issues[0]?.message).toBe(messageBefore);
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
