import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import type { PayloadSchemaOf } from '../contract/validate.js';
import { plainPayloadSchema } from '../contract/validate.js';

/**
 * The contract's schemas compiled by zod (`z.compile`) for the Node build: interpreted zod/mini
 * was most of the SDK's CPU per event (`npm run bench`). A refused value is parsed again by the
 * ordinary parser, so errors read the same. Compiled on first use and never under
 * `z.config({ jitless: true })` or in the Web build, since `new Function` may be forbidden there.
 */
export function compiler<K extends string, S extends z.ZodMiniType>(schemaOf: (key: K) => S): (key: K) => S {
  const compiled = new Map<K, S>();
  return (key) => {
    let schema = compiled.get(key);
    if (schema === undefined) {
      const plain = schemaOf(key);
      schema = globalConfig.jitless ? plain : (z.compile(plain) as S);
      compiled.set(key, schema);
    }
    return schema;
  };
}

/** The payload schemas `createEnvelope`, the client and the outbox validate with, compiled. */
export const compiledPayloadSchema: PayloadSchemaOf = compiler(plainPayloadSchema);
