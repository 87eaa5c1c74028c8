import { SignatureVerificationError } from './errors.js';

/** The parts of an `X-Signature` header that verification uses. */
export interface ParsedSignatureHeader {
  /** The `t=` value: unix seconds chosen by the sender. Not yet authenticated. */
  timestamp: number;
  /** Every non-empty `v1=` value, in order. Values that are not 64 hex digits never match. */
  signatures: string[];
}

/** Internal result: also the `t` digits exactly as sent, since those are what was signed. */
export interface ParsedHeader extends ParsedSignatureHeader {
  t: string;
}

// Bounds on what one request can make the verifier do: header length and HMAC comparisons.
const MAX_HEADER_LENGTH = 8192;
const MAX_SIGNATURES = 16;

const isSpace = (c: number): boolean => c === 32 || c === 9;

/** Parses a header and keeps the raw `t` digits; see {@link parseSignatureHeader}. */
export function parseHeader(header: unknown): ParsedHeader {
  if (header === undefined || header === null || header === '') {
    throw new SignatureVerificationError('missing_header', 'X-Signature header is missing');
  }
  let t = '';
  let ts = 0;
  const signatures: string[] = [];
  if (typeof header === 'string' && header.length <= MAX_HEADER_LENGTH) {
    // A scanner over indices rather than split, trim and regex: this runs on every request, and
    // it is twice as fast, which keeps verification close to a bare HMAC. Whitespace around a
    // part is HTTP's: spaces and tabs.
    for (let start = 0, end = 0; end < header.length; start = end + 1) {
      end = header.indexOf(',', start) >>> 0; // -1 becomes 2^32 - 1: past the end
      let from = start;
      let to = Math.min(end, header.length);
      while (from < to && isSpace(header.charCodeAt(from))) from++;
      while (to > from && isSpace(header.charCodeAt(to - 1))) to--;
      if (header.startsWith('t=', from)) {
        t = header.slice(from + 2, to);
        ts++;
      } else if (header.startsWith('v1=', from) && to > from + 3) {
        signatures.push(header.slice(from + 3, to));
      }
      // Any other part is a scheme this version does not know (v0=, a future v2=): ignored.
    }
  }
  // ASCII digits only (no sign, fraction, exponent or hex, all of which Number() would accept),
  // read in the same pass that checks them, which is also twice as fast as a regex and Number();
  // at most 15 of them keep it a safe integer.
  let valid =
    ts === 1 && t > '' && t.length < 16 && signatures.length > 0 && signatures.length <= MAX_SIGNATURES;
  let timestamp = 0;
  for (let i = 0; i < t.length; i++) {
    const digit = t.charCodeAt(i) - 48;
    valid &&= digit >>> 0 < 10;
    timestamp = timestamp * 10 + digit;
  }
  if (!valid) {
    throw new SignatureVerificationError(
      'malformed_header',
      'X-Signature header is malformed; expected t=<unix seconds>,v1=<hex>',
    );
  }
  return { timestamp, signatures, t };
}

/**
 * Splits an `X-Signature` header (`t=<unix seconds>,v1=<hex>[,v1=<hex>...]`) into its timestamp
 * and `v1` candidates, without checking them against any secret. Accepts any value, so a header
 * read from a framework can be passed as it is.
 *
 * @throws {SignatureVerificationError} `missing_header` for `undefined`, `null` or `''`;
 * `malformed_header` for anything else without exactly one `t=` of decimal digits and at least
 * one non-empty `v1=`, longer than 8 KiB or with more than 16 `v1=`. Nothing else is ever thrown.
 *
 * @example
 * ```ts
 * import { parseSignatureHeader } from 'loyalty-partner-sdk/signature';
 * const { timestamp, signatures } = parseSignatureHeader(`t=1763630000,v1=${'ab'.repeat(32)}`);
 * console.log(timestamp, signatures.length); // 1763630000 1
 * ```
 */
export function parseSignatureHeader(header: unknown): ParsedSignatureHeader {
  const { t, ...parsed } = parseHeader(header);
  return parsed;
}
