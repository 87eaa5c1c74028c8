/**
 * When the attempts of one webhook delivery start, in milliseconds after the first (spec 8):
 * now, 1 min, 5 min, 15 min, 1 h, 6 h. After the sixth attempt fails the delivery is failed.
 *
 * @example
 * ```ts
 * import { WEBHOOK_RETRY_LADDER_MS } from 'loyalty-partner-sdk/testing';
 * console.log(WEBHOOK_RETRY_LADDER_MS.map((ms) => ms / 60_000)); // [0, 1, 5, 15, 60, 360]
 * ```
 */
export const WEBHOOK_RETRY_LADDER_MS: readonly number[] = Object.freeze(
  [0, 1, 5, 15, 60, 360].map((minutes) => minutes * 60_000),
);

/** What one attempt's answer means for the delivery (spec 3.2). */
export type AttemptVerdict = 'delivered' | 'retry' | 'rejected';

/**
 * Judges a receiver's answer: 2xx is delivered; 5xx, 429 and a 401 whose body carries
 * `SIGNATURE_EXPIRED` are retried (the last lets a skewed clock recover); any other answer is a
 * permanent refusal. Timeouts and network failures never get here: they are always retried.
 */
export function judgeAnswer(status: number, body: string): AttemptVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || status === 429) return 'retry';
  if (status === 401 && body.includes('SIGNATURE_EXPIRED')) return 'retry';
  return 'rejected';
}
