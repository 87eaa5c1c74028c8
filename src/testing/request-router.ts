import { CLIENT_DEFAULTS } from '../client/options.js';
import { type EventProcessorDeps, processEvent } from './event-processor.js';
import type { EmulatorReply, EmulatorRequest, EmulatorResponse } from './exchange.js';
import {
  FAULT_CLOCK_SKEW_SECONDS,
  type FaultInjector,
  type FaultKind,
  isServiceUnavailableKind,
} from './faults.js';
import {
  type EndpointOutcome,
  errorResponse,
  otherErrorResponse,
  type ReplyContext,
  respond,
} from './http-reply.js';
import { checkConnection, lookupCustomer, PLANNED_SYNC_PATHS, plannedEndpoint } from './partner-endpoints.js';
import { codeOf } from './receiver-exchange.js';
import type { Endpoint, RequestLog, RequestRecord } from './request-log.js';

/** The base path of every partner endpoint (spec 4 and 9). */
export const PARTNER_BASE_PATH = '/api/partner/v1';

export interface RouterDeps extends EventProcessorDeps {
  faults: FaultInjector;
  log: RequestLog;
  /** The service's time, skew included: what `Date` says and signatures are judged by. */
  serviceNow: () => number;
  /** The emulator's clock without skew: what the log records, like delivery attempts. */
  clockNow: () => number;
}

// The client's default paths, so the two can never drift apart.
const { events, connection, customerLookup } = CLIENT_DEFAULTS.paths;
type Route = { path: string; method: string; endpoint: Exclude<Endpoint, 'unknown'> };
const ROUTES: Record<string, Route> = Object.fromEntries(
  [
    { path: events, method: 'POST', endpoint: 'events' } as Route,
    { path: connection, method: 'GET', endpoint: 'connection' } as Route,
    { path: customerLookup, method: 'GET', endpoint: 'customer-lookup' } as Route,
    ...PLANNED_SYNC_PATHS.map(
      (path): Route => ({ path: `${PARTNER_BASE_PATH}${path}`, method: 'POST', endpoint: 'planned' }),
    ),
  ].map((route) => [route.path, route]),
);

// `skewSeconds`: how far off the signature clock is (the clock-skew fault).
type Answer = (
  request: EmulatorRequest,
  ctx: ReplyContext,
  deps: RouterDeps,
  skewSeconds: number,
) => EndpointOutcome | Promise<EndpointOutcome>;
const ANSWERS: Record<Route['endpoint'], Answer> = {
  events: processEvent,
  connection: checkConnection,
  'customer-lookup': lookupCustomer,
  planned: plannedEndpoint,
};

// Exact paths only: a base URL that repeats the partner path (`.../api/partner/v1`) or adds one
// must fail here, as it would against the service, not pass every local test.
const routeOf = (path: string) => ROUTES[path.replace(/\/+$/, '')];

/** The 404 message: which path was expected, and why a close miss happened. */
function notFoundMessage(path: string): string {
  const meant = Object.keys(ROUTES).find((candidate) => path.replace(/\/+$/, '').endsWith(candidate));
  if (meant) {
    return (
      `No partner endpoint at ${path}: expected ${meant}. The base URL must be the service's ` +
      `origin (e.g. http://127.0.0.1:8787), without ${PARTNER_BASE_PATH} or any other path`
    );
  }
  return `No partner endpoint at ${path}: the partner endpoints are ${events}, ${connection} and ${customerLookup}`;
}

// A caller's own correlation id is echoed when it looks like one; otherwise the log makes one.
const sentCorrelationId = (request: EmulatorRequest) => {
  const sent = request.header('x-correlation-id');
  return sent && /^[\w.:-]{1,128}$/.test(sent) ? sent : null;
};

// `undefined` for a fault that answers nothing: the connection is dropped or left hanging.
function faultResponse(kind: FaultKind, ctx: ReplyContext): EmulatorResponse | undefined {
  if (isServiceUnavailableKind(kind)) return errorResponse(kind, `Injected fault: ${kind}`, ctx);
  if (kind !== 'rate-limited') return undefined;
  return otherErrorResponse(429, 'RATE_LIMITED', 'Injected fault: too many requests', ctx, {
    'retry-after': '1',
  });
}

/** Routes one request through faults and the endpoint, and logs what happened to it. */
export async function routeRequest(
  request: EmulatorRequest,
  deps: RouterDeps,
  basePath = '',
): Promise<EmulatorReply> {
  const { pathname } = request;
  // msw serves the emulator below its own base URL: only that URL's path is taken off.
  const path = basePath && pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : pathname;
  const route = routeOf(path);
  const entry = deps.log.open({
    at: deps.clockNow(),
    method: request.method,
    // The route's own path when it matched: the same string for every request to it.
    path: route?.path ?? pathname,
    endpoint: route?.endpoint ?? 'unknown',
    correlationId: sentCorrelationId(request),
  });
  const ctx: ReplyContext = { correlationId: entry.correlationId, now: deps.serviceNow() };
  if (!route) return finish(entry, otherErrorResponse(404, 'NOT_FOUND', notFoundMessage(path), ctx));
  if (request.method !== route.method) {
    const message = `${pathname} answers ${route.method} only`;
    return finish(
      entry,
      otherErrorResponse(405, 'METHOD_NOT_ALLOWED', message, ctx, { allow: route.method }),
    );
  }
  // Faults strike before any processing, so a faulted request is never credited.
  const fault = route.endpoint === 'planned' ? undefined : deps.faults.draw(route.endpoint);
  entry.fault = fault ?? null;
  if (fault && fault !== 'clock-skew' && fault !== 'timeout-after-processing') {
    await identify(entry, request, deps);
    entry.outcome = 'fault';
    const response = faultResponse(fault, ctx);
    if (response) return finish(entry, response, 'fault');
    return { kind: fault === 'reset' ? 'reset' : 'hang' };
  }
  const skew = fault === 'clock-skew' ? FAULT_CLOCK_SKEW_SECONDS : 0;
  const outcome = await ANSWERS[route.endpoint](request, ctx, deps, skew);
  entry.tenantId = outcome.tenantId ?? null;
  entry.eventId = outcome.eventId ?? null;
  entry.eventType = outcome.eventType ?? null;
  const reply = finish(entry, outcome.response, outcome.replayed ? 'replayed' : undefined);
  // Processed and cached, then silence: the retry must get the cached answer replayed.
  if (fault === 'timeout-after-processing') return { kind: 'hang' };
  return reply;
}

function finish(
  entry: RequestRecord,
  response: EmulatorResponse,
  outcome?: RequestRecord['outcome'],
): EmulatorReply {
  entry.status = response.status;
  // Every refusal is the error envelope: its `code` is what the log records.
  if (response.status >= 400) entry.code = codeOf(response.body);
  const ok = response.status >= 200 && response.status < 300;
  entry.outcome = outcome ?? (ok ? 'processed' : 'rejected');
  return respond(response);
}

// A faulted request is never processed, but the log still says whose and which event it was.
async function identify(entry: RequestRecord, request: EmulatorRequest, deps: RouterDeps): Promise<void> {
  const apiKey = request.header('x-api-key');
  entry.tenantId = (apiKey && deps.store.byApiKey(apiKey)?.tenantId) || null;
  if (entry.endpoint !== 'events') return;
  try {
    const body = JSON.parse(new TextDecoder().decode(await request.body())) as Record<string, unknown> | null;
    if (typeof body?.eventId === 'string') entry.eventId = body.eventId;
    if (typeof body?.eventType === 'string') entry.eventType = body.eventType;
  } catch {
    // Not JSON: the log keeps nulls, as it would for any unreadable body.
  }
}
