import type { RawBody } from '../signature/bytes.js';
import { SignatureVerificationError, type SignatureVerificationReason } from '../signature/errors.js';
import type { Secrets } from '../signature/secrets.js';
import type { VerifiedSignature, VerifyOptions } from '../signature/verify.js';
import { andThen, isThenable, type MaybePromise } from './maybe-async.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import type { Delivery } from './receiver-types.js';
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
const PUBLIC_MESSAGES: Record<SignatureVerificationReason, string | undefined> = {
  missing_header: undefined,
  malformed_header: undefined,
  no_match: 'The X-Signature does not verify under the signing secret of this tenant',
  no_secret: 'The X-Signature does not verify under the signing secret of this tenant',
  timestamp_too_old: undefined,
  timestamp_in_future: undefined,
};

/**
 * Finds the tenant's secrets and verifies `X-Signature` over the raw body with `verify`. A
 * resolver that throws is the receiver's failure, not the sender's: it must not be answered
 * 401, which the service would never retry. Synchronous when the resolver and `verify` are.
 */
export function verifyDelivery(
  options: NormalizedReceiverOptions,
  verify: SignatureVerifier,
  delivery: Delivery,
  tenantId: string | undefined,
  signatureHeader: string | undefined,
): MaybePromise<VerifiedDelivery> {
  let secrets: ReturnType<NormalizedReceiverOptions['secrets']>;
  try {
    secrets = options.secrets(tenantId);
    if (isThenable(secrets)) {
      const check = (found: Secrets | undefined) =>
        checkSignature(options, verify, delivery.rawBody, signatureHeader, found);
      return Promise.resolve(secrets).then(check, secretsUnavailable);
    }
  } catch (cause) {
    return secretsUnavailable(cause);
  }
  return checkSignature(options, verify, delivery.rawBody, signatureHeader, secrets);
}

function secretsUnavailable(cause: unknown): VerifiedDelivery {
  const error = new WebhookError('SECRETS_UNAVAILABLE', 'The secrets resolver threw', { cause });
  return { ok: false, error, publicMessage: 'The receiver cannot read its signing secrets now; retry later' };
}

function checkSignature(
  options: NormalizedReceiverOptions,
  verify: SignatureVerifier,
  rawBody: RawBody,
  signatureHeader: string | undefined,
  secrets: Secrets | undefined,
): MaybePromise<VerifiedDelivery> {
  try {
    return andThen(
      verify(rawBody, signatureHeader, secrets ?? [], { toleranceSeconds: options.toleranceSeconds }),
      accept,
      refused,
    );
  } catch (error) {
    return refused(error);
  }
}

const accept = (signature: VerifiedSignature): VerifiedDelivery => ({ ok: true, signature });

/** A verification failure becomes the 401 answer; anything else the verifier throws is a bug. */
function refused(error: unknown): VerifiedDelivery {
  if (!(error instanceof SignatureVerificationError)) throw error;
  return { ok: false, error, publicMessage: PUBLIC_MESSAGES[error.reason] ?? error.message };
}
