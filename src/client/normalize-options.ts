import * as z from 'zod/mini';
import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { isLogger, type Logger } from '../telemetry/logger.js';
import type { MeterProviderLike, TracerProviderLike } from '../telemetry/otel-types.js';
import type { TelemetryOptions } from '../telemetry/telemetry.js';
import type { ClientHooks } from './hooks.js';
import { CLIENT_DEFAULTS, type LoyaltyClientOptions, RETRY_WINDOW_MS } from './options.js';

/** The options after defaults and checks: what the rest of the client reads. */
export interface ResolvedOptions {
  /** `scheme://host[:port]`. */
  origin: string;
  /** Path prefix of `baseUrl` without a trailing slash (`''` for none). */
  basePath: string;
  apiKey: string;
  secrets: readonly string[];
  timeoutMs: number;
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
const secret = z.string({ error: 'must be a string' }).check(z.minLength(1, { error: 'must not be empty' }));
const DAY_HOURS = RETRY_WINDOW_MS / 3_600_000;

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
  retry: z.optional(
    z.union(
      [
        z.literal(false),
        z.strictObject({
          maxAttempts: z.optional(int(1, 100, 'a whole number from 1 to 100')),
          baseDelayMs: z.optional(int(0, 3_600_000, 'a whole number of milliseconds >= 0')),
          maxDelayMs: z.optional(int(0, RETRY_WINDOW_MS, 'a whole number of milliseconds >= 0')),
          maxElapsedMs: z.optional(
            int(0, RETRY_WINDOW_MS, `a whole number of milliseconds, at most ${DAY_HOURS} hours`),
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

function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw invalid([{ path: 'baseUrl', message: 'must be an absolute http(s) URL' }]);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw invalid([{ path: 'baseUrl', message: 'must be an absolute http(s) URL' }]);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw invalid([{ path: 'baseUrl', message: 'must not carry credentials, a query or a fragment' }]);
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

/**
 * Checks the options a client was created with and merges them with `CLIENT_DEFAULTS`.
 * Throws `LoyaltyValidationError` (`INVALID_OPTIONS`) naming every option at fault, never
 * quoting a value.
 */
export function normalizeOptions(options: LoyaltyClientOptions): ResolvedOptions {
  const parsed = schema.safeParse(options);
  if (!parsed.success) throw invalid(optionIssues(parsed.error));
  const o = parsed.data;
  const defaults = CLIENT_DEFAULTS;
  const retry = o.retry === false ? { maxAttempts: 1 } : { ...o.retry };
  const budget = o.retry === false ? false : o.retry?.budget;
  const resolvedRetry = { ...defaults.retry, ...retry };
  if (resolvedRetry.maxDelayMs < resolvedRetry.baseDelayMs) {
    throw invalid([{ path: 'retry.maxDelayMs', message: 'must be at least retry.baseDelayMs' }]);
  }
  return {
    ...parseBaseUrl(o.baseUrl),
    apiKey: o.apiKey,
    secrets: typeof o.signingSecret === 'string' ? [o.signingSecret] : [...o.signingSecret],
    timeoutMs: o.timeoutMs ?? defaults.timeoutMs,
    retry: {
      maxAttempts: resolvedRetry.maxAttempts,
      baseDelayMs: resolvedRetry.baseDelayMs,
      maxDelayMs: resolvedRetry.maxDelayMs,
      maxElapsedMs: resolvedRetry.maxElapsedMs,
    },
    budget: budget === false ? undefined : { ...defaults.retry.budget, ...budget },
    fetch: o.fetch as typeof fetch | undefined,
    hooks: { ...(o.hooks as ClientHooks | undefined) },
    paths: { ...defaults.paths, ...o.paths },
    connections: o.connections ?? defaults.connections,
    now: (o.now as (() => number) | undefined) ?? defaults.now,
    telemetry: {
      tracerProvider: o.tracerProvider as TracerProviderLike | undefined,
      meterProvider: o.meterProvider as MeterProviderLike | undefined,
      logger: o.logger,
    },
  };
}
