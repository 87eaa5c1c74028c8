import { fromHex, type RawBody } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { AsyncHmac, SyncHmac } from './hmac.js';
import { type MacEngine, macsOf } from './macs.js';
import { type ParsedHeader, parseHeader } from './parse-header.js';
import type { Secrets } from './secrets.js';

/**
 * How far, in seconds and in either direction, a signature's `t` may be from now (spec 5.2).
 *
 * @example
 * ```ts
 * import { DEFAULT_TOLERANCE_SECONDS } from 'loyalty-partner-sdk/signature';
 * console.log(DEFAULT_TOLERANCE_SECONDS); // 300
 * ```
 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * Options of `verifySignature` and `verifySignatureAsync`.
 *
 * @example
 * ```ts
 * import type { VerifyOptions } from 'loyalty-partner-sdk/signature';
 * const strict: VerifyOptions = { toleranceSeconds: 60 };
 * const inATest: VerifyOptions = { now: 1763630000 };
 * ```
 */
export interface VerifyOptions {
  /**
   * Largest accepted distance between `t` and `now`, in seconds, in either direction; a
   * difference of exactly this many seconds still passes. A negative or NaN value rejects every
   * request (fails closed); `Infinity` turns the replay window off.
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * The verifier's clock in unix seconds, for tests and for callers with a corrected clock.
   * @default Math.floor(Date.now() / 1000)
   */
  now?: number;
}

/**
 * What a successful verification establishes.
 *
 * @example
 * ```ts
 * import { type VerifiedSignature, verifySignature } from 'loyalty-partner-sdk/signature';
 * declare const body: string;
 * declare const header: string;
 * const { timestamp, secretIndex }: VerifiedSignature = verifySignature(body, header, ['whsec_new', 'whsec_old']);
 * if (secretIndex > 0) console.info('still signed with the old secret at', timestamp);
 * ```
 */
export interface VerifiedSignature {
  /** The authenticated `t` of the header, unix seconds. */
  timestamp: number;
  /** Position in the secrets list of the first secret that matched, e.g. to retire old secrets. */
  secretIndex: number;
}

/**
 * The shape of `verifySignature` in both builds, for code that takes a verifier as a parameter.
 *
 * @example
 * ```ts
 * import { type VerifySignature, verifySignature } from 'loyalty-partner-sdk/signature';
 * const verify: VerifySignature = verifySignature;
 * ```
 */
export type VerifySignature = (
  rawBody: RawBody,
  header: string | null | undefined,
  secrets: Secrets,
  options?: VerifyOptions,
) => VerifiedSignature;

/**
 * The shape of `verifySignatureAsync`.
 *
 * @example
 * ```ts
 * import { type VerifySignatureAsync, verifySignatureAsync } from 'loyalty-partner-sdk/signature';
 * const verify: VerifySignatureAsync = verifySignatureAsync;
 * ```
 */
export type VerifySignatureAsync = (...args: Parameters<VerifySignature>) => Promise<VerifiedSignature>;

/** The HMAC as the core sees it: `M` is a MAC, or a promise of one. */
interface CoreHmac<Text, M> extends MacEngine<Text, M> {
  equal: SyncHmac['equal'];
  fromHex?: SyncHmac['fromHex'];
}

/** The unix time now, in whole seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/**
 * The verification, written once for both kinds of HMAC: everything up to the MACs here, the
 * comparison and the clock in {@link conclude}; the async path only awaits the MACs in between.
 * `conclude` is passed as a plain function rather than built as a closure per call: this is
 * the Node hot path, measured against a bare createHmac loop. Whatever comes with a request
 * (header, body) or from configuration (secrets, options) only ever gives a
 * SignatureVerificationError, whatever its type.
 */
function verifyCore<Text, M, R>(
  hmac: CoreHmac<Text, M>,
  next: (hmac: CoreHmac<Text, M>, macs: M[], header: ParsedHeader, now: number, tolerance: number) => R,
  rawBody: unknown,
  header: unknown,
  secrets: unknown,
  options: VerifyOptions | undefined,
): R {
  const parsed = parseHeader(header);
  return next(
    hmac,
    macsOf(hmac, rawBody, parsed.t, secrets),
    parsed,
    options?.now ?? nowSeconds(),
    options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
  );
}

function conclude<Text>(
  hmac: CoreHmac<Text, unknown>,
  macs: Uint8Array[],
  { timestamp, signatures }: ParsedHeader,
  now: number,
  tolerance: number,
): VerifiedSignature {
  // Every MAC meets every candidate whatever matched earlier: the time taken depends only on how
  // many secrets and candidates there are, never on which one matched. A candidate that is not
  // 64 hex digits is skipped: its shape is public, so skipping it tells an attacker nothing.
  let secretIndex = macs.length;
  for (const hex of signatures) {
    const digest = (hmac.fromHex ?? fromHex)(hex);
    for (let i = 0; digest && i < macs.length; i++) {
      if (hmac.equal(macs[i]!, digest) && i < secretIndex) secretIndex = i;
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
      `X-Signature timestamp is ${age} s from now, over the ${tolerance} s tolerance; check the clocks`,
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
      async (...[, macs, ...rest]) => conclude(hmac, await Promise.all(macs), ...rest),
      rawBody,
      header,
      secrets,
      options,
    );
