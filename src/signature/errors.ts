import { codedError } from '../contract/errors.js';

/**
 * Why a signature was refused. Each reason maps to exactly one `code`: the two timestamp reasons
 * to `SIGNATURE_EXPIRED` (the service retries those), every other one to `INVALID_SIGNATURE`.
 */
export type SignatureVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_match'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'no_secret';

/** The error code a receiver answers 401 with (Partner Event Interface 5.2). */
export type SignatureVerificationCode = 'INVALID_SIGNATURE' | 'SIGNATURE_EXPIRED';

/**
 * The only error `verifySignature`, `verifySignatureAsync` and `parseSignatureHeader` throw for a
 * bad request, whatever the header, body or secrets hold. `code` is what to answer with 401;
 * `reason` says what to check. The message never holds a secret, a digest or a `v1` value, so it
 * can be logged as it is.
 *
 * @example
 * ```ts
 * import { SignatureVerificationError, verifySignature } from 'loyalty-partner-sdk/signature';
 * try {
 *   verifySignature('{}', 't=1,v1=00', 'whsec_example');
 * } catch (err) {
 *   if (err instanceof SignatureVerificationError) console.log(401, err.code, err.reason);
 * }
 * ```
 */
export class SignatureVerificationError extends codedError('SignatureVerificationError') {
  // `declare`: assigned in the constructor, so no class-field initialisers are emitted.
  declare readonly code: SignatureVerificationCode;
  declare readonly reason: SignatureVerificationReason;

  constructor(reason: SignatureVerificationReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
    this.code = reason.startsWith('timestamp') ? 'SIGNATURE_EXPIRED' : 'INVALID_SIGNATURE';
  }

  /**
   * What a log line or a 401 body may show: nothing beyond the name, code, reason and message.
   *
   * @example
   * ```ts
   * import { SignatureVerificationError } from 'loyalty-partner-sdk/signature';
   * const err = new SignatureVerificationError('missing_header', 'X-Signature header is missing');
   * console.log(JSON.stringify(err)); // {"name":"SignatureVerificationError","code":"INVALID_SIGNATURE",...}
   * ```
   */
  toJSON(): {
    name: string;
    code: SignatureVerificationCode;
    reason: SignatureVerificationReason;
    message: string;
  } {
    return { name: this.name, code: this.code, reason: this.reason, message: this.message };
  }
}
