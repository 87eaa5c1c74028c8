import { DeadlinePassed, isPromiseLike, withDeadline } from '../internal/deadline.js';
import type { RawBody } from '../signature/bytes.js';
import { SignatureVerificationError, type SignatureVerificationReason } from '../signature/errors.js';
import type { Secrets } from '../signature/secrets.js';
import type { VerifiedSignature, VerifyOptions } from '../signature/verify-options.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import type { RawDelivery } from './receiver-types.js';
import { WebhookError } from './webhook-error.js';

/**
 * How a receiver checks `X-Signature`: `verifySignatureAsync` (Web Crypto) in the Web build, the
 * synchronous Node-crypto `verifySignature` under the `node` condition (platform-node/webhooks.ts).
 */
export type SignatureVerifier = (
  rawBody: RawBody,
  header: string | undefined,
  secrets: Secrets,
  options: VerifyOptions,
) => VerifiedSignature | Promise<VerifiedSignature>;

/** The outcome of checking a delivery's signature. */
export type VerifiedDelivery =
  | { ok: true; signature: VerifiedSignature }
  | { ok: false; error: SignatureVerificationError | WebhookError; publicMessage: string };

// What the sender is told. A wrong signature and an unknown tenant read the same, so a caller
// cannot probe which tenants exist; the full reason goes to onError only.
const NOT_VERIFIED = 'The X-Signature does not verify under the signing secret of this tenant';
const NOT_VERIFIED_REASONS: ReadonlySet<SignatureVerificationReason> = new Set(['no_match', 'no_secret']);

/**
 * Finds the tenant's secrets and verifies `X-Signature` over the raw body with `verify`. A
 * resolver that throws or does not answer within `resolverTimeoutMs` is the receiver's failure,
 * not the sender's: it is answered 503, which the service retries, never 401, which it would not.
 */
export async function verifyDelivery(
  options: NormalizedReceiverOptions,
  verify: SignatureVerifier,
  delivery: RawDelivery,
  tenantId: string | undefined,
  signatureHeader: string | undefined,
): Promise<VerifiedDelivery> {
  let secrets: Secrets | undefined;
  try {
    const found = withDeadline(options.secrets(tenantId), options.resolverTimeoutMs);
    secrets = isPromiseLike(found) ? await found : found;
  } catch (cause) {
    return secretsUnavailable(cause);
  }
  try {
    const verifyOptions = { toleranceSeconds: options.toleranceSeconds };
    const checked = verify(delivery.rawBody, signatureHeader, secrets ?? [], verifyOptions);
    const signature = isPromiseLike(checked) ? await checked : checked;
    return { ok: true, signature };
  } catch (error) {
    // A verification failure becomes the 401 answer; anything else the verifier throws is a bug.
    if (!(error instanceof SignatureVerificationError)) throw error;
    const publicMessage = NOT_VERIFIED_REASONS.has(error.reason) ? NOT_VERIFIED : error.message;
    return { ok: false, error, publicMessage };
  }
}

function secretsUnavailable(cause: unknown): VerifiedDelivery {
  const text =
    cause instanceof DeadlinePassed
      ? `The secrets resolver did not answer within resolverTimeoutMs (${cause.ms} ms)`
      : 'The secrets resolver threw';
  const error = new WebhookError('SECRETS_UNAVAILABLE', text, { cause });
  return { ok: false, error, publicMessage: 'The receiver cannot read its signing secrets now; retry later' };
}
