import { BODY_TYPE_MESSAGE, fromHex, toBytes } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { AsyncHmac, SyncHmac } from './hmac.js';
import { type ParsedHeader, parseHeader } from './parse-header.js';
import { readSecrets } from './secrets.js';

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

/** Options of `verifySignature` and `verifySignatureAsync`. */
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

/** What a successful verification establishes. */
export interface VerifiedSignature {
  /** The authenticated `t` of the header, unix seconds. */
  timestamp: number;
  /** Position in the secrets list of the first secret that matched, e.g. to retire old secrets. */
  secretIndex: number;
}

/** The HMAC as the core sees it: `M` is a MAC, or a promise of one. */
interface CoreHmac<Text, M> {
  mac(secret: string, t: string, body: Uint8Array | Text): M;
  equal: SyncHmac['equal'];
  text?: SyncHmac<Text>['text'];
  fromHex?: SyncHmac['fromHex'];
}

type Conclude<Text, M, R> = (
  hmac: CoreHmac<Text, M>,
  macs: M[],
  header: ParsedHeader,
  now: number,
  tolerance: number,
) => R;

/**
 * The verification, written once for both kinds of HMAC: everything up to the MACs here, the
 * comparison and the clock in {@link conclude}; the async path only awaits the MACs in between.
 * Plain functions instead of closures keep the synchronous hot path free of allocations.
 *
 * Whatever comes with a request (header, body) or from configuration (secrets, options) only
 * ever gives a SignatureVerificationError, whatever its type.
 */
function verifyCore<Text, M, R>(
  hmac: CoreHmac<Text, M>,
  next: Conclude<Text, M, R>,
  rawBody: unknown,
  header: unknown,
  secrets: unknown,
  options: VerifyOptions | undefined,
): R {
  const tolerance = options?.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options?.now ?? Math.floor(Date.now() / 1000);
  const keys = readSecrets(secrets);
  if (!keys) {
    throw new SignatureVerificationError('no_secret', 'No signing secret configured (empty or not a string)');
  }
  const parsed = parseHeader(header);
  const body = toBytes(rawBody, hmac.text);
  if (!body) throw new SignatureVerificationError('no_match', BODY_TYPE_MESSAGE);
  return next(
    hmac,
    keys.map((key) => hmac.mac(key, parsed.t, body)),
    parsed,
    now,
    tolerance,
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
  // many secrets and candidates there are, never on which one matched. Each candidate is decoded
  // just before its comparisons, synchronously, so a shared buffer is safe even on the async path.
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
      `No v1 signature matched under any of the ${macs.length} configured secret(s); check the tenant's signing secret and that the raw body bytes are verified unchanged`,
    );
  }
  // Judged only now that the signature is authentic: a forged header learns nothing about the
  // tolerance, and a stale forged one is reported as forged. Written as "not within" so that a
  // NaN `now` or `toleranceSeconds` (a misconfiguration) fails closed instead of accepting all.
  const age = now - timestamp;
  if (!(Math.abs(age) <= tolerance)) {
    throw new SignatureVerificationError(
      age > 0 ? 'timestamp_too_old' : 'timestamp_in_future',
      `X-Signature timestamp is ${Math.abs(age)} s ${age > 0 ? 'old' : 'ahead'}, over the ${tolerance} s tolerance; check both clocks`,
    );
  }
  return { timestamp, secretIndex };
}

/** Verification with a synchronous HMAC; the public `verifySignature` of each build binds one. */
export function verifyWith<Text>(
  hmac: SyncHmac<Text>,
  rawBody: unknown,
  header: unknown,
  secrets: unknown,
  options?: VerifyOptions,
): VerifiedSignature {
  return verifyCore(hmac, conclude, rawBody, header, secrets, options);
}

/** Verification with an asynchronous HMAC (Web Crypto): {@link verifyWith} with awaited MACs. */
export async function verifyWithAsync(
  hmac: AsyncHmac,
  rawBody: unknown,
  header: unknown,
  secrets: unknown,
  options?: VerifyOptions,
): Promise<VerifiedSignature> {
  return verifyCore(
    hmac,
    async (...[, macs, ...rest]) => conclude(hmac, await Promise.all(macs), ...rest),
    rawBody,
    header,
    secrets,
    options,
  );
}
