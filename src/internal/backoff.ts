/**
 * Exponential backoff with full jitter: retry `n` (from 1) waits a uniform pick between 0 and
 * `min(maxDelayMs, baseDelayMs * 2^(n-1))`, so clients that failed together do not return as one wave.
 */
export function backoffDelay(retry: number, settings: { baseDelayMs: number; maxDelayMs: number }): number {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.min(retry - 1, 52));
  return Math.floor(Math.random() * cap);
}
