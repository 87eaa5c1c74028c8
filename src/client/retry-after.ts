/**
 * Reads a `Retry-After` header: delay-seconds (`120`) or an HTTP date. Returns milliseconds to
 * wait, or `undefined` when absent or unreadable.
 *
 * A date is measured against the answer's own `Date` header when there is one, so a partner clock
 * that is off does not stretch or shrink the wait; otherwise against `now` (the corrected clock).
 */
export function parseRetryAfter(
  value: string | null,
  dateHeader: string | null,
  now: number,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const until = Date.parse(text);
  if (!Number.isFinite(until)) return undefined;
  const serverNow = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  return Math.max(0, until - (Number.isFinite(serverNow) ? serverNow : now));
}
