import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import * as zm from 'zod/mini';

// The built package carries its own tree-shaken copy of zod (tsup `noExternal`, for cold start).
// A user's zod 4 must still take the SDK's `schemas` as its own: compose them, recognise them
// with `instanceof`, catch their errors. zod 4 recognises instances by trait, not by class
// identity, which is what makes the two copies one for the user; these tests hold it to that.
const built = fileURLToPath(new URL('../../dist/index.node.js', import.meta.url));

type Schemas = typeof import('loyalty-partner-sdk')['schemas'];
let schemas: Schemas;
let createEnvelope: typeof import('loyalty-partner-sdk')['createEnvelope'];

const customer = { externalCustomerId: 'c-1', phone: '+966500000001' };

beforeAll(async () => {
  const sdk = (await import(built)) as typeof import('loyalty-partner-sdk');
  schemas = sdk.schemas;
  createEnvelope = sdk.createEnvelope;
});

describe('the built schemas and the user’s own zod', () => {
  it('does not load the zod package at run time', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
    const importing = readdirSync(dist)
      .filter((file) => /\.(c?js)$/.test(file))
      .filter((file) => /(from|require\()\s*["']zod/.test(readFileSync(dist + file, 'utf8')));
    expect(importing).toEqual([]);
  });

  it('recognises the SDK’s schemas as zod schemas', () => {
    expect(schemas.envelope).toBeInstanceOf(z.core.$ZodType);
    expect(schemas.entities.customer).toBeInstanceOf(zm.ZodMiniObject);
  });

  it('composes them into the user’s schemas, classic and mini', () => {
    const envelope = createEnvelope('CustomerSynced', customer);
    const classic = z.object({ received: schemas.envelope, note: z.string() });
    expect(classic.parse({ received: envelope, note: 'ok' }).received.eventId).toBe(envelope.eventId);
    const mini = zm.array(schemas.entities.customer);
    expect(mini.parse([customer])).toEqual([customer]);
  });

  it('fails with an error the user’s zod recognises', () => {
    const result = z.array(schemas.entities.customer).safeParse([{ phone: 42 }]);
    expect(result.success).toBe(false);
    expect(result.error).toBeInstanceOf(z.ZodError);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain('0.externalCustomerId');
  });

  it('exports them to JSON Schema with the user’s zod', () => {
    const json = z.toJSONSchema(schemas.entities.customer) as { required?: string[] };
    expect(json.required).toContain('externalCustomerId');
  });
});
