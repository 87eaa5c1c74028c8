import type { TransportResponse } from './transport.js';

/**
 * Reads an answer's `Retry-After` header (delay-seconds or an HTTP date) as milliseconds to wait,
 * or `undefined`. A date is measured against the answer's own `Date` header when there is one, so
 * a local clock that is off does not change the wait.
 */
export function parseRetryAfter(headers: TransportResponse['headers'], now: number): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const until = Date.parse(text);
  if (!Number.isFinite(until)) return undefined;
  const dateHeader = headers.get('date');
  const serverNow = dateHeader ? Date.parse(dateHeader) : Number.NaN;
  return Math.max(0, until - (Number.isFinite(serverNow) ? serverNow : now));
}
