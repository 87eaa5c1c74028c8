import { withoutUndefined } from '../contract/merge-defaults.js';
import { type Attributes, type AttributeValue, SPAN_STATUS, type SpanLike } from './otel-types.js';

/*
 * Attribute names: OpenTelemetry's semantic conventions (messaging, HTTP client, error.type)
 * where one fits, `loyalty.*` for what is the SDK's own. The README lists them; a rename here
 * is a breaking change for every dashboard built on them.
 */
export const ATTR = {
  messagingSystem: 'messaging.system',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  messageId: 'messaging.message.id',
  destination: 'messaging.destination.name',
  httpMethod: 'http.request.method',
  httpStatus: 'http.response.status_code',
  resendCount: 'http.request.resend_count',
  urlTemplate: 'url.template',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  tenant: 'loyalty.tenant.id',
  correlationId: 'loyalty.correlation_id',
  outcome: 'loyalty.outcome',
  state: 'loyalty.outbox.state',
  /** A stored delivery's state, on `loyalty.receiver.inbox.depth`. */
  inboxState: 'loyalty.inbox.state',
} as const;

/** Buckets in seconds for durations of HTTP calls and handlers (the HTTP conventions' advice). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** Server address and port of an origin, for `server.address` and `server.port`. */
export function serverOf(origin: string): { address: string; port: number } {
  const url = new URL(origin);
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { address: url.hostname, port };
}

/** Attributes with the `undefined` values left out, as OpenTelemetry wants them. */
export function attributesOf(values: Record<string, AttributeValue | undefined>): Attributes {
  return withoutUndefined(values) as Attributes;
}

/** The attributes of a messaging span: a `create`, `send` or `process` of one event. */
export function messagingAttributes(
  operation: 'create' | 'send' | 'process',
  values: Record<string, AttributeValue | undefined>,
): Attributes {
  return attributesOf({
    [ATTR.messagingSystem]: 'loyalty',
    [ATTR.operationType]: operation,
    [ATTR.operationName]: operation,
    ...values,
  });
}

/** Ends a span, marked as failed with `errorType` when there is one. */
export function endSpan(span: SpanLike | undefined, errorType: string | undefined): void {
  if (!span) return;
  if (errorType !== undefined) {
    span.setAttribute(ATTR.errorType, errorType);
    span.setStatus({ code: SPAN_STATUS.ERROR });
  }
  span.end();
}
