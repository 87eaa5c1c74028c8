import { SIGNATURE_TOLERANCE_SECONDS } from '../contract/tolerance.js';
import type { RawBody } from './bytes.js';
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
export const DEFAULT_TOLERANCE_SECONDS = SIGNATURE_TOLERANCE_SECONDS;

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

/** The shape of `verifySignature` in both builds, for code that takes a verifier as a parameter. */
export type VerifySignature = (
  rawBody: RawBody,
  header: string | null | undefined,
  secrets: Secrets,
  options?: VerifyOptions,
) => VerifiedSignature;

/** The shape of `verifySignatureAsync`. */
export type VerifySignatureAsync = (...args: Parameters<VerifySignature>) => Promise<VerifiedSignature>;

/** The unix time now, in whole seconds. */
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
