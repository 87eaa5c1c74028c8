/**
 * Exponential backoff with full jitter: the wait before retry `n` (1 for the first retry) is a
 * uniform pick between 0 and `min(maxDelayMs, baseDelayMs * 2^(n-1))`. Full jitter spreads the
 * retries of many clients that failed together, so they do not come back as one wave.
 */
export function backoffDelay(
  retry: number,
  settings: { baseDelayMs: number; maxDelayMs: number },
  random: () => number = Math.random,
): number {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** Math.min(retry - 1, 52));
  return Math.floor(random() * cap);
}
