import { type HeadersLike, readHeader } from '../webhooks/read-headers.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A header value as the bytes the sender wrote, read as UTF-8. Node's HTTP parser and the Web
 * `Headers` class both hand header bytes over one character per byte (Latin-1), so a tenant id
 * sent as UTF-8 (`مطعم-1`) would otherwise reach the secrets resolver garbled and never verify.
 * A value that is not valid UTF-8 is kept as it was.
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
