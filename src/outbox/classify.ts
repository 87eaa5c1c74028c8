import {
  LoyaltyApiError,
  LoyaltyClientClosedError,
  LoyaltyNetworkError,
  type NetworkErrorCode,
} from '../client/errors.js';
import { ERROR_CODES, errorCodeInfo, LoyaltyValidationError } from '../contract/index.js';
import type { EventFailure } from './store.js';

/** Action `stop` in the catalogue, but for a queue the goal reached: the invoice is credited already. */
const ALREADY_CREDITED = 'PARTNER_INVOICE_ALREADY_EARNED';

/** Codes about the integration rather than the event: the outbox pauses or stops the tenant on them. */
export const TENANT_WIDE_CODES: ReadonlySet<string> = new Set(
  Object.entries(ERROR_CODES)
    .filter(([, info]) => 'tenantWide' in info && info.tenantWide)
    .map(([code]) => code),
);

/** An offline tenant's probe is not retried by the client when the link still does not answer either. */
export const PROBE_NO_RETRY_CODES: ReadonlySet<string> = new Set([
  ...TENANT_WIDE_CODES,
  ...(['NETWORK_ERROR', 'TIMEOUT'] satisfies NetworkErrorCode[]),
]);

/** What the outbox does with an event after one `sendEnvelope` call. */
export type Verdict =
  | {
      readonly kind: 'delivered';
      readonly status: number;
      readonly correlationId: string | undefined;
      readonly alreadyCredited: boolean;
    }
  | {
      readonly kind: 'retry' | 'park' | 'dead' | 'pause-tenant' | 'stop-tenant';
      readonly failure: EventFailure;
      /** The service answered (as opposed to no answer, or a refusal by the SDK). */
      readonly answered: boolean;
      /** The answer's `Retry-After`, in milliseconds: the wait the service asked for. */
      readonly waitMs?: number | undefined;
    }
  | { readonly kind: 'aborted' };

/** Turns a client error into the outbox's decision, from the contract's catalogue alone. */
export function classify(error: unknown, aborted: boolean): Verdict {
  if (aborted) return { kind: 'aborted' };
  if (isApiError(error)) {
    const failure = { code: error.code, message: error.message, status: error.status };
    const { retryAfterMs: waitMs } = error;
    if (error.code === ALREADY_CREDITED) {
      const { status, correlationId } = error;
      return { kind: 'delivered', status, correlationId, alreadyCredited: true };
    }
    const info = errorCodeInfo(error.code);
    const tenantWide = info ? info.tenantWide === true : error.status === 401;
    if (tenantWide || error.action === 'reauthenticate') {
      const pause = error.action === 'retry' || error.action === 'fix-setup';
      return { kind: pause ? 'pause-tenant' : 'stop-tenant', failure, answered: true, waitMs };
    }
    if (error.retryable || error.action === 'retry' || error.action === 'check-clock') {
      return { kind: 'retry', failure, answered: true, waitMs };
    }
    return { kind: error.action === 'fix-setup' ? 'park' : 'dead', failure, answered: true };
  }
  if (error instanceof LoyaltyValidationError) {
    return { kind: 'dead', failure: { code: error.code, message: error.message }, answered: false };
  }
  if (error instanceof LoyaltyNetworkError || error instanceof LoyaltyClientClosedError) {
    return { kind: 'retry', failure: { code: error.code, message: error.message }, answered: false };
  }
  // Anything else is a bug or an unexpected transport failure: keep the event and try again later.
  const message = error instanceof Error ? error.message : String(error);
  return { kind: 'retry', failure: { code: 'UNEXPECTED_ERROR', message }, answered: false };
}

/** Attempts a client error reports (the client's own retries included); at least one. */
export function attemptsOf(error: unknown): number {
  const attempts = (error as { attempts?: unknown } | null)?.attempts;
  return typeof attempts === 'number' && attempts > 0 ? attempts : 1;
}

// By class, never by `name` (any error can claim a name): the entry points share the client's
// classes (one build with code splitting), so `instanceof` holds across them.
function isApiError(error: unknown): error is LoyaltyApiError {
  return (
    error instanceof LoyaltyApiError && typeof error.code === 'string' && typeof error.status === 'number'
  );
}
