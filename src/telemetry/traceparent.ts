import type { SpanContextLike } from './otel-types.js';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const INVALID_TRACE = /^0+$/;

/**
 * A span context as a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`): the form the outbox
 * stores with an event, so that its later `send` span can link to its `create` span after a
 * restart. A plain string: any store keeps it as it is.
 */
export function toTraceparent(context: SpanContextLike): string | undefined {
  const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
  const text = `00-${context.traceId}-${context.spanId}-${flags}`;
  return parseTraceparent(text) ? text : undefined;
}

/** The span context a `traceparent` names, or `undefined` for anything that is not one. */
export function parseTraceparent(text: unknown): SpanContextLike | undefined {
  if (typeof text !== 'string') return undefined;
  const match = TRACEPARENT.exec(text);
  if (!match || INVALID_TRACE.test(match[1]!) || INVALID_TRACE.test(match[2]!)) return undefined;
  return {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16),
    isRemote: true,
  };
}
