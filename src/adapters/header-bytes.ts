import { type HeadersLike, readHeader } from '../webhooks/read-headers.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value read as UTF-8 (kept as it is when it is not): Node and `Headers` hand bytes over
 * as Latin-1, so a UTF-8 tenant id (`مطعم-1`) would reach the secrets resolver garbled.
 */
export function utf8HeaderValue(value: string): string {
  // Plain ASCII (almost every value) is the same either way; a char above 0xff was never a byte.
  if (!/[\x80-\xff]/.test(value) || /[\u0100-\uffff]/.test(value)) return value;
  try {
    return utf8.decode(Uint8Array.from(value, (char) => char.charCodeAt(0)));
  } catch {
    return value;
  }
}

/** The request's headers, each value read through {@link utf8HeaderValue}. */
export function utf8Headers(headers: HeadersLike): HeadersLike {
  return {
    get: (name) => {
      const value = readHeader(headers, name);
      return value === undefined ? null : utf8HeaderValue(value);
    },
  };
}
