import * as z from 'zod/mini';
import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { sdkErrorMap } from '../contract/issue-message.js';
import { RETRY_WINDOW_HOURS, RETRY_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults, withoutUndefined } from '../contract/merge-defaults.js';
import { isLogger, type Logger } from '../telemetry/logger.js';
import type { MeterProviderLike, TracerProviderLike } from '../telemetry/otel-types.js';
import type { TelemetryOptions } from '../telemetry/telemetry.js';
import type { ClientHooks } from './hooks.js';
import {
  CLIENT_DEFAULTS,
  type ClientPaths,
  type LoyaltyClientOptions,
  MAX_RESPONSE_BYTES_LIMIT,
  type RetryOptions,
} from './options.js';

/** The options `mergeDefaults` completes, besides `retry`. */
type Defaulted = Pick<
  LoyaltyClientOptions,
  'timeoutMs' | 'maxResponseBytes' | 'connections' | 'now' | 'paths'
>;

/** The options after defaults and checks: what the rest of the client reads. */
export interface ResolvedOptions {
  /** `scheme://host[:port]`. */
  origin: string;
  /** Path prefix of `baseUrl` without a trailing slash (`''` for none). */
  basePath: string;
  apiKey: string;
  secrets: readonly string[];
  timeoutMs: number;
  maxResponseBytes: number;
  retry: { maxAttempts: number; baseDelayMs: number; maxDelayMs: number; maxElapsedMs: number };
  budget: { capacity: number; refillPerSuccess: number } | undefined;
  fetch: typeof fetch | undefined;
  hooks: ClientHooks;
  paths: { events: string; connection: string; customerLookup: string };
  connections: number;
  now: () => number;
  /** Tracer and meter providers and the logger, as given. */
  telemetry: TelemetryOptions;
}

// Messages are written here, never taken from the input: an option may hold the key or secret.
// zod/mini, as the contract's schemas: classic zod would not fit the Web build's 30 KB budget.
const int = (min: number, max: number, what: string) =>
  z
    .int({ error: `must be ${what}` })
    .check(z.gte(min, { error: `must be ${what}` }), z.lte(max, { error: `must be ${what}` }));
const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', {
  error: 'must be a function',
});
/** An object with the named method: an OpenTelemetry provider is checked by shape, never imported. */
const hasMethods = (method: string, what: string) =>
  z.custom<object>(
    (v) =>
      typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)[method] === 'function',
    { error: `must be ${what}` },
  );
const path = z.string({ error: 'must be a path string' }).check(
  z.regex(/^\/(?!\/)[^?#\s]*$/, {
    error: "must start with a single '/' and hold no query, fragment or space",
  }),
);
// Not blank: a secret of spaces is a configuration slip (an unset variable padded by a template),
// and an HMAC under it is one anyone can compute.
const secret = z
  .string({ error: 'must be a string' })
  .check(z.regex(/\S/, { error: 'must not be empty or blank' }));

const schema = z.strictObject({
  baseUrl: z.string({ error: 'is required: the service base address, e.g. https://loyalty.example.com' }),
  apiKey: z
    .string({ error: 'is required: the API key issued at activation' })
    .check(z.regex(/^[\x21-\x7e]+$/, { error: 'must be non-empty printable ASCII without spaces' })),
  signingSecret: z.union(
    [secret, z.array(secret).check(z.minLength(1, { error: 'must hold at least one secret' }))],
    { error: 'is required: a non-empty string, or a non-empty list of them while rotating' },
  ),
  timeoutMs: z.optional(int(1, 600_000, 'a whole number of milliseconds from 1 to 600000')),
  maxResponseBytes: z.optional(
    int(1024, MAX_RESPONSE_BYTES_LIMIT, `a whole number of bytes from 1024 to ${MAX_RESPONSE_BYTES_LIMIT}`),
  ),
  retry: z.optional(
    z.union(
      [
        z.literal(false),
        z.strictObject({
          maxAttempts: z.optional(int(1, 100, 'a whole number from 1 to 100')),
          baseDelayMs: z.optional(int(0, 3_600_000, 'a whole number of milliseconds >= 0')),
          maxDelayMs: z.optional(int(0, RETRY_WINDOW_MS, 'a whole number of milliseconds >= 0')),
          maxElapsedMs: z.optional(
            int(0, RETRY_WINDOW_MS, `a whole number of milliseconds, at most ${RETRY_WINDOW_HOURS} hours`),
          ),
          budget: z.optional(
            z.union([
              z.literal(false),
              z.strictObject({
                capacity: z.optional(int(0, 1_000_000, 'a whole number >= 0')),
                // z.number() refuses Infinity and NaN by itself.
                refillPerSuccess: z.optional(z.number().check(z.gte(0, { error: 'must be a number >= 0' }))),
              }),
            ]),
          ),
        }),
      ],
      { error: 'must be false or an object of retry settings' },
    ),
  ),
  fetch: z.optional(fn),
  hooks: z.optional(
    z.strictObject({
      onRequest: z.optional(fn),
      onResponse: z.optional(fn),
      onRetry: z.optional(fn),
      onClockSkew: z.optional(fn),
    }),
  ),
  paths: z.optional(
    z.strictObject({
      events: z.optional(path),
      connection: z.optional(path),
      customerLookup: z.optional(path),
    }),
  ),
  connections: z.optional(int(1, 1024, 'a whole number from 1 to 1024')),
  now: z.optional(fn),
  tracerProvider: z.optional(
    hasMethods('getTracer', 'a TracerProvider of @opentelemetry/api (with getTracer)'),
  ),
  meterProvider: z.optional(hasMethods('getMeter', 'a MeterProvider of @opentelemetry/api (with getMeter)')),
  logger: z.optional(
    z.custom<Logger>(isLogger, { error: 'must be an object with debug, info, warn and error methods' }),
  ),
});

function optionIssues(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: base ? `${base}.${key}` : key,
        message: 'is not an option of LoyaltyClient (check its spelling)',
      }));
    }
    return [{ path: base, message: issue.message }];
  });
}

function invalid(issues: ValidationIssue[]): LoyaltyValidationError {
  return new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid LoyaltyClient options', issues);
}

/** The origin and path prefix of `baseUrl`, or the issue that makes it unusable. */
function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } | ValidationIssue {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { path: 'baseUrl', message: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { path: 'baseUrl', message: 'must be an absolute http(s) URL' };
  }
  if (url.username || url.password || url.search || url.hash) {
    return { path: 'baseUrl', message: 'must not carry credentials, a query or a fragment' };
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

/**
 * Checks the options a client was created with and merges them with `CLIENT_DEFAULTS`. An option
 * given as `undefined` is an option not given, at every depth (`withoutUndefined`). Throws
 * `LoyaltyValidationError` (`INVALID_OPTIONS`) naming every option at fault at once, never
 * quoting a value.
 */
export function normalizeOptions(options: LoyaltyClientOptions): ResolvedOptions {
  const given = withoutUndefined(options);
  const parsed = schema.safeParse(given, { error: sdkErrorMap });
  const issues = parsed.success ? [] : optionIssues(parsed.error);
  // Each check below runs whatever the schema found, so one error names every fault.
  const base =
    typeof given?.baseUrl === 'string' ? parseBaseUrl(given.baseUrl) : { origin: '', basePath: '' };
  if ('message' in base) issues.push(base);
  const retryGiven = given?.retry;
  const retry = mergeDefaults<RetryOptions>(
    CLIENT_DEFAULTS.retry,
    retryGiven === false
      ? { maxAttempts: 1, budget: false }
      : typeof retryGiven === 'object'
        ? retryGiven
        : {},
  );
  if (Number(retry.maxDelayMs) < Number(retry.baseDelayMs)) {
    issues.push({ path: 'retry.maxDelayMs', message: 'must be at least retry.baseDelayMs' });
  }
  if (!parsed.success || issues.length || 'message' in base) throw invalid(issues);
  const o = parsed.data;
  const resolved = mergeDefaults<Defaulted>(
    {
      timeoutMs: CLIENT_DEFAULTS.timeoutMs,
      maxResponseBytes: CLIENT_DEFAULTS.maxResponseBytes,
      connections: CLIENT_DEFAULTS.connections,
      now: CLIENT_DEFAULTS.now,
      paths: CLIENT_DEFAULTS.paths,
    },
    {
      timeoutMs: o.timeoutMs,
      maxResponseBytes: o.maxResponseBytes,
      connections: o.connections,
      now: o.now as (() => number) | undefined,
      paths: o.paths,
    },
  );
  const budget = retry.budget as RetryOptions['budget'];
  return {
    ...base,
    apiKey: o.apiKey,
    secrets: typeof o.signingSecret === 'string' ? [o.signingSecret] : [...o.signingSecret],
    timeoutMs: resolved.timeoutMs,
    maxResponseBytes: resolved.maxResponseBytes,
    retry: {
      maxAttempts: retry.maxAttempts,
      baseDelayMs: retry.baseDelayMs,
      maxDelayMs: retry.maxDelayMs,
      maxElapsedMs: retry.maxElapsedMs,
    },
    budget: budget === false ? undefined : mergeDefaults(CLIENT_DEFAULTS.retry.budget, budget),
    fetch: o.fetch as typeof fetch | undefined,
    hooks: { ...(o.hooks as ClientHooks | undefined) },
    paths: resolved.paths as Required<ClientPaths>,
    connections: resolved.connections,
    now: resolved.now,
    telemetry: {
      tracerProvider: o.tracerProvider as TracerProviderLike | undefined,
      meterProvider: o.meterProvider as MeterProviderLike | undefined,
      logger: o.logger,
    },
  };
}
