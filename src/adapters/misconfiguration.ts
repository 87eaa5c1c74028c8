import { callHook } from '../contract/call-hook.js';
import { codedError } from '../contract/errors.js';
import type { ErrorContext } from '../webhooks/receiver-types.js';

/**
 * The app is wired wrong, not the delivery: a body parser in front of the adapter kept no raw
 * bytes (`RAW_BODY_UNAVAILABLE`), so no signature can verify and the service keeps redelivering.
 * `framework` and `fix` say what to change.
 *
 * @example
 * ```ts
 * import { AdapterError, expressWebhook } from 'loyalty-partner-sdk/express';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: 'whsec_example', handlers: {} });
 * expressWebhook(receiver, {
 *   onError: (err) => {
 *     if (err instanceof AdapterError) console.error(err.framework, err.fix);
 *   },
 * });
 * ```
 */
export class AdapterError extends codedError('AdapterError') {
  readonly code: 'RAW_BODY_UNAVAILABLE';
  /** The framework the adapter serves, as named in the fix: `Express`, `NestJS`, `Next.js`, ... */
  readonly framework: string;
  /** What to change in the app, in that framework's own terms. */
  readonly fix: string;

  constructor(code: 'RAW_BODY_UNAVAILABLE', framework: string, fix: string) {
    super(`${framework}: the request body was read before the webhook adapter got it. ${fix}`);
    this.code = code;
    this.framework = framework;
    this.fix = fix;
  }
}

/**
 * Where an adapter reports a misconfiguration: `onError` and one `warn` line
 * per framework and logger (the console: per process), seen at the first delivery without flooding
 * the logs at every retry.
 */
export interface MisconfigurationReporting {
  /** Called for every delivery refused because of the app's setup. Its result is ignored. */
  onError?: ((error: AdapterError, ctx: ErrorContext) => unknown) | undefined;
  /** Where the one warning goes; `false` for none. @default console */
  logger?: { warn(message: string): unknown } | false | undefined;
}

/** The frameworks each logger was warned about: the console's once per process. */
const warned = new WeakMap<object, Set<string>>();

/** Tells `onError` and, once per framework and logger, the logger. Never throws. */
export function reportMisconfiguration(
  reporting: MisconfigurationReporting,
  error: AdapterError,
  ctx: ErrorContext,
): void {
  callHook(reporting.onError, error, ctx);
  const logger = reporting.logger === undefined ? console : reporting.logger;
  if (!logger) return;
  const frameworks = warned.get(logger) ?? new Set<string>();
  if (frameworks.has(error.framework)) return;
  warned.set(logger, frameworks.add(error.framework));
  callHook(
    (message: string) => logger.warn(message),
    `[loyalty-partner-sdk] ${error.message} Every delivery is answered 500 RAW_BODY_UNAVAILABLE ` +
      'and retried by the Loyalty service until this is fixed. (Logged once.)',
  );
}
