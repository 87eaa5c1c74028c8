import { LoyaltyValidationError } from '../contract/errors.js';
import { RETRY_WINDOW_HOURS, RETRY_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults, withoutUndefined } from '../contract/merge-defaults.js';
import {
  functionOrAbsent,
  isWhole,
  type OptionCheck,
  optionIssues,
  throwIfInvalid,
  unknownKeys,
  wholeNumber,
} from '../contract/options-check.js';
import { type TelemetryOptions, telemetryIssues } from '../telemetry/telemetry.js';
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
const OWNER = 'LoyaltyClient';
const TOP = 'baseUrl apiKey signingSecret timeoutMs maxResponseBytes retry fetch hooks paths connections now'
  .concat(' tracerProvider meterProvider logger')
  .split(' ');
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// Not blank: a secret of spaces is a configuration slip (an unset variable padded by a template),
// and an HMAC under it is one anyone can compute.
const secretCheck = (path: string, value: unknown): OptionCheck =>
  typeof value === 'string'
    ? [path, /\S/.test(value), 'must not be empty or blank']
    : [path, false, 'must be a string'];
const pathCheck = (path: string, value: unknown): OptionCheck => [
  path,
  value === undefined || (typeof value === 'string' && /^\/(?!\/)[^?#\s]*$/.test(value)),
  "must start with a single '/' and hold no query, fragment or space",
];
/** Every check of a group (`retry`, `hooks`, ...) that may be absent, or must be an object when given. */
const group = (
  path: string,
  value: unknown,
  known: string[],
  checks: (g: Record<string, unknown>) => OptionCheck[],
) =>
  value === undefined
    ? []
    : isObject(value)
      ? [...unknownKeys(path, value, known, OWNER), ...checks(value)]
      : [[path, false, `must be an object of ${path} settings`] as const];

function signingSecretChecks(value: unknown): OptionCheck[] {
  if (typeof value === 'string') return [secretCheck('signingSecret', value)];
  if (!Array.isArray(value))
    return [
      ['signingSecret', false, 'is required: a non-empty string, or a non-empty list of them while rotating'],
    ];
  return [
    ['signingSecret', value.length > 0, 'must hold at least one secret'],
    ...value.map((secret, i) => secretCheck(`signingSecret.${i}`, secret)),
  ];
}

function retryChecks(retry: unknown): OptionCheck[] {
  if (retry === false) return [];
  if (retry !== undefined && !isObject(retry))
    return [['retry', false, 'must be false or an object of retry settings']];
  const r = mergeDefaults<RetryOptions>(CLIENT_DEFAULTS.retry, retry as RetryOptions | undefined);
  const budget: unknown = r.budget === false ? {} : r.budget;
  const { capacity = 0, refillPerSuccess = 0 } = isObject(budget) ? budget : {};
  return [
    ...unknownKeys(
      'retry',
      retry,
      ['maxAttempts', 'baseDelayMs', 'maxDelayMs', 'maxElapsedMs', 'budget'],
      OWNER,
    ),
    wholeNumber('retry.maxAttempts', r.maxAttempts, 1, 100),
    wholeNumber('retry.baseDelayMs', r.baseDelayMs, 0, 3_600_000, 'milliseconds'),
    wholeNumber('retry.maxDelayMs', r.maxDelayMs, 0, RETRY_WINDOW_MS, 'milliseconds'),
    ['retry.maxDelayMs', Number(r.maxDelayMs) >= Number(r.baseDelayMs), 'must be at least retry.baseDelayMs'],
    [
      'retry.maxElapsedMs',
      isWhole(r.maxElapsedMs, 0, RETRY_WINDOW_MS),
      `must be a whole number of milliseconds, at most ${RETRY_WINDOW_HOURS} hours`,
    ],
    ['retry.budget', isObject(budget), 'must be false or an object of budget settings'],
    ...unknownKeys('retry.budget', budget, ['capacity', 'refillPerSuccess'], OWNER),
    wholeNumber('retry.budget.capacity', capacity, 0, 1_000_000),
    [
      'retry.budget.refillPerSuccess',
      Number.isFinite(refillPerSuccess) && (refillPerSuccess as number) >= 0,
      'must be a number >= 0',
    ],
  ];
}

/** The origin and path prefix of `baseUrl`, or the issue that makes it unusable. */
function parseBaseUrl(baseUrl: string): { origin: string; basePath: string } | { message: string } {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return { message: 'must be an absolute http(s) URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { message: 'must be an absolute http(s) URL' };
  }
  if (url.username || url.password || url.search || url.hash) {
    return { message: 'must not carry credentials, a query or a fragment' };
  }
  return { origin: url.origin, basePath: url.pathname.replace(/\/+$/, '') };
}

/**
 * Checks the options a client was created with and merges them with `CLIENT_DEFAULTS`. An option
 * given as `undefined` is an option not given, at every depth (`withoutUndefined`). Throws
 * `LoyaltyValidationError` (`INVALID_OPTIONS`) naming every option at fault at once, never
 * quoting a value, after one log line when a logger is given.
 */
export function normalizeOptions(options: LoyaltyClientOptions): ResolvedOptions {
  const given = (withoutUndefined(options) ?? {}) as Partial<Record<keyof LoyaltyClientOptions, unknown>>;
  const base = typeof given.baseUrl === 'string' ? parseBaseUrl(given.baseUrl) : { origin: '', basePath: '' };
  const o = mergeDefaults<Defaulted>(CLIENT_DEFAULTS as Required<Defaulted>, given as Defaulted);
  const issues = optionIssues([
    ...unknownKeys('', given, TOP, OWNER),
    [
      'baseUrl',
      typeof given.baseUrl === 'string',
      'is required: the service base address, e.g. https://loyalty.example.com',
    ],
    'message' in base && ['baseUrl', false, base.message],
    typeof given.apiKey === 'string'
      ? ['apiKey', /^[\x21-\x7e]+$/.test(given.apiKey), 'must be non-empty printable ASCII without spaces']
      : ['apiKey', false, 'is required: the API key issued at activation'],
    ...signingSecretChecks(given.signingSecret),
    wholeNumber('timeoutMs', o.timeoutMs, 1, 600_000, 'milliseconds'),
    wholeNumber('maxResponseBytes', o.maxResponseBytes, 1024, MAX_RESPONSE_BYTES_LIMIT, 'bytes'),
    ...retryChecks(given.retry),
    functionOrAbsent('fetch', given.fetch),
    ...group('hooks', given.hooks, HOOKS, (hooks) =>
      HOOKS.map((name) => functionOrAbsent(`hooks.${name}`, hooks[name])),
    ),
    ...group('paths', given.paths, PATHS, (paths) =>
      PATHS.map((name) => pathCheck(`paths.${name}`, paths[name])),
    ),
    wholeNumber('connections', o.connections, 1, 1024),
    functionOrAbsent('now', given.now),
  ]);
  issues.push(...telemetryIssues(given));
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', `Invalid ${OWNER} options`, all),
    {
      logger: given.logger,
      event: 'loyalty.client.misconfiguration',
    },
  );
  const retry = mergeDefaults<RetryOptions>(
    CLIENT_DEFAULTS.retry,
    given.retry === false ? { maxAttempts: 1, budget: false } : (given.retry as RetryOptions | undefined),
  );
  const { budget, ...attempts } = retry;
  const secret = given.signingSecret as string | readonly string[];
  return {
    ...(base as { origin: string; basePath: string }),
    apiKey: given.apiKey as string,
    secrets: typeof secret === 'string' ? [secret] : [...secret],
    timeoutMs: o.timeoutMs,
    maxResponseBytes: o.maxResponseBytes,
    retry: attempts as ResolvedOptions['retry'],
    budget: budget === false ? undefined : mergeDefaults(CLIENT_DEFAULTS.retry.budget, budget),
    fetch: given.fetch as typeof fetch | undefined,
    hooks: { ...(given.hooks as ClientHooks | undefined) },
    paths: o.paths as Required<ClientPaths>,
    connections: o.connections,
    now: o.now,
    telemetry: {
      tracerProvider: options.tracerProvider,
      meterProvider: options.meterProvider,
      logger: options.logger,
    },
  };
}

const HOOKS = ['onRequest', 'onResponse', 'onRetry', 'onClockSkew'];
const PATHS = ['events', 'connection', 'customerLookup'];
