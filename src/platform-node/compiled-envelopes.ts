import * as z from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import type { OutboundEventType } from '../contract/event-types.js';
import { receivedEnvelopeSchemas } from '../contract/schemas/received-envelope.js';
import type { EnvelopeSchemaOf } from '../webhooks/parse-delivery.js';

type EnvelopeSchema = (typeof receivedEnvelopeSchemas)[OutboundEventType];

const compiled = new Map<OutboundEventType, EnvelopeSchema>();

/**
 * The contract's envelope schema of `eventType`, compiled by zod (`z.compile`) for the Node
 * receiver. zod/mini interprets a schema node by node, and that made validation the largest part
 * of a delivery: without compiling, `receiver.handle` falls short of its goal of keeping up with
 * stripe's `constructEvent` (`npm run bench`, receiver). Anything the compiled schema refuses is
 * parsed again by the ordinary parser, so errors read the same.
 *
 * Each type is compiled on its first delivery, not at import. Compiling runs `new Function`:
 * never where the application turned that off with `z.config({ jitless: true })`, and never in
 * the Web build, whose runtimes (Workers, pages under a CSP) may forbid it. A schema zod cannot
 * compile comes back as it was.
 */
export const compiledEnvelopeSchema: EnvelopeSchemaOf = (eventType) => {
  let schema = compiled.get(eventType);
  if (schema === undefined) {
    const plain: EnvelopeSchema = receivedEnvelopeSchemas[eventType];
    schema = globalConfig.jitless ? plain : z.compile(plain);
    compiled.set(eventType, schema);
  }
  return schema as (typeof receivedEnvelopeSchemas)[typeof eventType];
};
