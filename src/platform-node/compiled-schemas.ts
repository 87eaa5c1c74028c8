import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import type { EventType } from '../contract/event-types.js';
import type { PayloadSchemaOf } from '../contract/validate.js';
import { plainPayloadSchema } from '../contract/validate.js';

/**
 * The contract's schemas compiled by zod (`z.compile`) for the Node build. zod/mini interprets a
 * schema node by node, and that made validation the largest part of the SDK's own work: without
 * compiling, `receiver.handle` falls short of keeping up with stripe's `constructEvent`, and the
 * client's CPU per event (envelope, validation, JSON, signature) passes its ceiling (`npm run
 * bench`: receiver, client). Anything a compiled schema refuses is parsed again by the ordinary
 * parser, so errors read the same.
 *
 * Each type is compiled on first use, not at import. Compiling runs `new Function`: never where
 * the application turned that off with `z.config({ jitless: true })`, and never in the Web build,
 * whose runtimes (Workers, pages under a CSP) may forbid it. A schema zod cannot compile comes
 * back as it was.
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
export const compiledPayloadSchema: PayloadSchemaOf = compiler<EventType, ReturnType<PayloadSchemaOf>>(
  plainPayloadSchema,
);
