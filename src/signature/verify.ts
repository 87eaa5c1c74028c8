import { equalHex } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { AsyncHmac, MacEngine, SyncHmac } from './hmac.js';
import { macsOf, refuseToVerify } from './macs.js';
import { type ParsedHeader, parseHeader } from './parse-header.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  nowSeconds,
  type VerifiedSignature,
  type VerifyOptions,
  type VerifySignature,
  type VerifySignatureAsync,
} from './verify-options.js';

/**
 * The verification, written once for both kinds of HMAC: everything up to the MACs here, the
 * comparison and the clock in {@link conclude}; the async path only awaits the MACs in between.
 * Whatever comes with a request (header, body) or from configuration (secrets, options) only
 * ever gives a SignatureVerificationError, whatever its type.
 */
function verifyCore<Text, M, R>(
  hmac: MacEngine<Text, M>,
  next: (macs: M[], header: ParsedHeader, now: number, tolerance: number) => R,
  rawBody: unknown,
  header: unknown,
  secrets: unknown,
  options: VerifyOptions | undefined,
): R {
  const parsed = parseHeader(header);
  return next(
    macsOf(hmac, rawBody, parsed.t, secrets, refuseToVerify),
    parsed,
    options?.now ?? nowSeconds(),
    options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
  );
}

function conclude(
  macs: string[],
  { timestamp, signatures }: ParsedHeader,
  now: number,
  tolerance: number,
): VerifiedSignature {
  // Every MAC meets every candidate whatever matched earlier: the time taken depends only on how
  // many secrets and candidates there are, never on which one matched. A candidate that is not
  // 64 hex digits is skipped: its shape is public, so skipping it tells an attacker nothing.
  let secretIndex = macs.length;
  for (const hex of signatures) {
    for (let i = 0; i < macs.length; i++) {
      if (equalHex(macs[i]!, hex) && i < secretIndex) secretIndex = i;
    }
  }
  if (secretIndex === macs.length) {
    throw new SignatureVerificationError(
      'no_match',
      `No v1 signature matched with the ${macs.length} configured secret(s); check the signing secret and that the raw body bytes are unchanged`,
    );
  }
  // Judged only now that the signature is authentic: a forged header learns nothing about the
  // tolerance, and a stale forged one is reported as forged. Written as "not within" so that a
  // NaN `now` or `toleranceSeconds` (a misconfiguration) fails closed instead of accepting all.
  const age = now - timestamp;
  if (!(Math.abs(age) <= tolerance)) {
    throw new SignatureVerificationError(
      age > 0 ? 'timestamp_too_old' : 'timestamp_in_future',
      `X-Signature timestamp is ${Math.abs(age)} s ${age > 0 ? 'old' : 'ahead'}, over the ${tolerance} s tolerance; check the clocks`,
    );
  }
  return { timestamp, secretIndex };
}

/** `verifySignature` bound to a synchronous HMAC; each build binds its own. */
export const createVerify =
  <Text>(hmac: SyncHmac<Text>): VerifySignature =>
  (rawBody, header, secrets, options) =>
    verifyCore(hmac, conclude, rawBody, header, secrets, options);

/** `verifySignatureAsync` bound to an asynchronous HMAC: the same core, with awaited MACs. */
export const createVerifyAsync =
  (hmac: AsyncHmac): VerifySignatureAsync =>
  async (rawBody, header, secrets, options) =>
    verifyCore(
      hmac,
      async (macs, ...rest) => conclude(await Promise.all(macs), ...rest),
      rawBody,
      header,
      secrets,
      options,
    );
