import { LoyaltyApiError, LoyaltyNetworkError } from '../client/errors.js';
import { errorCodeInfo, LoyaltyValidationError, type ValidationIssue } from '../contract/index.js';
import { codeOf } from '../internal/code-of.js';
import { PostgresStoreError } from '../postgres/errors.js';
import { RedisStoreError } from '../redis/errors.js';
import { ControlRefusal, EmulatorUnreachable } from './emulate/control-client.js';
import { EXIT, type ExitCode, UsageError } from './exit-codes.js';
import { plural } from './io.js';
import { StoreUnavailable } from './ops/ops-stores.js';

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
  for (let cause = err, depth = 0; cause instanceof Error && depth < 4; depth++, cause = cause.cause) {
    const code = codeOf(cause);
    if (/^E[A-Z]+$/.test(code)) return code;
  }
  return undefined;
}

/** What `client.send` threw as the CLI's report, or `undefined` for an untyped error (a bug, rethrown). */
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

/** SQLSTATE classes that say the server or the connection is the trouble, not the request. */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P|58)/;

/**
 * The one place a command's failure becomes an exit code and a line (a usage error, a store's, the
 * emulator's, the client's), redacted by `run-cli.ts`; `undefined` for a bug (an internal error).
 */
export function describeFailure(err: unknown): { exit: ExitCode; line: string } | undefined {
  if (err instanceof UsageError) return { exit: EXIT.usage, line: err.message };
  if (err instanceof StoreUnavailable || err instanceof EmulatorUnreachable)
    return { exit: EXIT.unavailable, line: err.message };
  if (err instanceof ControlRefusal)
    return { exit: EXIT.failed, line: `the emulator refused: ${err.code}: ${err.message}` };
  const sent = describeSendError(err);
  if (sent) return { exit: sent.exit, line: sent.line };
  const storeCode =
    err instanceof PostgresStoreError || err instanceof RedisStoreError ? (err.code as string) : undefined;
  // A driver's own error (pg's DatabaseError, a socket's errno) carries a string `code` too.
  const code = codeOf(err);
  const sqlState = codeOf((err as { cause?: unknown } | null)?.cause) || code;
  const message = (err as Error)?.message ?? String(err);
  if (storeCode === 'NOT_MIGRATED' || sqlState === '42P01')
    return {
      exit: EXIT.usage,
      line: `${message} (run migrate from loyalty-partner-sdk/postgres, or apply postgres/schema.sql)`,
    };
  if (sqlState === '42501')
    return {
      exit: EXIT.failed,
      line: `the database refused it, nothing was changed: ${message} (grant the role what the message names, or act as a role that has it)`,
    };
  if (storeCode === 'UNREACHABLE' || storeCode === 'CONNECTION_LOST')
    return { exit: EXIT.unavailable, line: message };
  if (UNAVAILABLE_SQLSTATE.test(sqlState) || /^E[A-Z]+$/.test(code))
    return { exit: EXIT.unavailable, line: message };
  if (storeCode !== undefined || /^[0-9A-Z]{5}$/.test(code)) return { exit: EXIT.failed, line: message };
  return undefined;
}
