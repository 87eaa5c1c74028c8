import { type ErrorAction, errorCodeInfo } from '../contract/error-codes.js';

/** What the client does about one failed answer. */
export interface Judgement {
  /** The envelope's code, or `HTTP_<status>` without one. */
  code: string;
  action: ErrorAction;
  /** Retry the same bytes with backoff. */
  retryable: boolean;
  /** The signature's time was refused: correct the clock from `Date` and retry once. */
  checkClock: boolean;
}

/**
 * Judges a non-2xx answer by its error envelope's `code` through the contract's `ERROR_CODES`,
 * not by its status: a 503 `INTEGRATION_PAUSED` is retried, a 400 `WRONG_EVENT_DIRECTION` stops
 * at once. A code the catalogue does not know (a newer service) falls back to the status:
 * 408, 429 and 5xx are retried, every other status stops.
 */
export function judgeAnswer(status: number, code: string | undefined): Judgement {
  const info = errorCodeInfo(code);
  const retryable = info ? info.retryable : status === 408 || status === 429 || status >= 500;
  const action = info?.action ?? (retryable ? 'retry' : 'stop');
  return { code: code ?? `HTTP_${status}`, action, retryable, checkClock: action === 'check-clock' };
}
