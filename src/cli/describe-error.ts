import { LoyaltyApiError, LoyaltyNetworkError } from '../client/errors.js';
import { errorCodeInfo, LoyaltyValidationError, type ValidationIssue } from '../contract/index.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { plural } from './io.js';

/** How the CLI reports one failed call: the exit code, one line for people, an object for `--json`. */
export interface ErrorReport {
  exit: ExitCode;
  line: string;
  json: Record<string, unknown>;
}

/** `payload.phone is required`: the field path, then the contract's message. */
export function formatIssue(issue: ValidationIssue): string {
  return issue.path ? `${issue.path} ${issue.message}` : issue.message;
}

// undici hides the reason (ECONNREFUSED, ENOTFOUND, ...) one or two causes down.
function errnoOf(err: unknown): string | undefined {
  for (let cause = err, depth = 0; cause instanceof Error && depth < 4; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    cause = cause.cause;
  }
  return undefined;
}

/**
 * Turns what `client.send` (or `syncBatch`) threw into the CLI's report, or `undefined` for an
 * error that is not one of the client's typed errors (a bug: the caller rethrows it). The
 * remedy is the contract's catalogue's; nothing here can hold a key or a secret, since the
 * client's errors never carry them.
 */
export function describeSendError(err: unknown): ErrorReport | undefined {
  if (err instanceof LoyaltyValidationError) {
    const detail = err.issues.length ? err.issues.map(formatIssue).join('; ') : err.message;
    return {
      exit: EXIT.usage,
      line: `refused locally, nothing was sent: ${err.code}: ${detail}`,
      json: { error: err.name, code: err.code, issues: err.issues },
    };
  }
  if (err instanceof LoyaltyApiError) {
    const remedy = errorCodeInfo(err.code)?.remedy ?? err.message;
    const resend = err.retryable && err.eventId ? `; send it again later with --event-id ${err.eventId}` : '';
    const head = err.retryable ? 'the service stayed unavailable' : 'the service refused the event';
    return {
      exit: err.retryable ? EXIT.unavailable : EXIT.failed,
      line:
        `${head}: ${err.code} (HTTP ${err.status}) after ${plural(err.attempts, 'attempt')}. ` +
        `${err.action}: ${remedy} correlationId ${err.correlationId ?? 'none'}${resend}`,
      json: {
        error: err.name,
        code: err.code,
        status: err.status,
        action: err.action,
        remedy,
        retryable: err.retryable,
        attempts: err.attempts,
        correlationId: err.correlationId ?? null,
        eventId: err.eventId ?? null,
      },
    };
  }
  if (err instanceof LoyaltyNetworkError) {
    const reason = errnoOf(err.cause) ?? err.code;
    const resend = err.eventId ? `; send it again later with --event-id ${err.eventId}` : '';
    return {
      exit: EXIT.unavailable,
      line: `no answer from the service: ${err.code} (${reason}) after ${plural(err.attempts, 'attempt')}${resend}`,
      json: { error: err.name, code: err.code, reason, attempts: err.attempts, eventId: err.eventId ?? null },
    };
  }
  return undefined;
}
