import { SignatureVerificationError, verifySignature } from '../platform-node/signature.js';
import type { Environment } from './emulator-options.js';
import { type Rejection, reject } from './http-reply.js';
import { connectionState, type MerchantRecord } from './merchant.js';
import type { MerchantStore } from './merchant-store.js';

/**
 * The checks every partner request passes first (spec 5.1 and 3.1): the API key selects the
 * tenant, then the connection state may refuse. A Disabled integration answers like one that is
 * not connected: the partner is to stop sending until the merchant enables it again.
 */
export function authenticate(
  store: MerchantStore,
  environment: Environment,
  apiKey: string | null,
): { ok: true; merchant: MerchantRecord } | Rejection {
  if (!apiKey) return reject('MISSING_API_KEY', 'The X-Api-Key header is missing');
  const merchant = store.byApiKey(apiKey);
  if (!merchant || merchant.environment !== environment) {
    return reject(
      'INVALID_API_KEY',
      `The API key is unknown, revoked, or not one of the ${environment} environment`,
    );
  }
  switch (connectionState(merchant)) {
    case 'NeverActivated':
      return reject('INTEGRATION_NOT_CONNECTED', 'The merchant has not activated the integration');
    case 'Disconnected':
      return reject(
        'INTEGRATION_ALREADY_DISCONNECTED',
        'The merchant disconnected; fresh credentials are required',
      );
    case 'Disabled':
      return reject(
        'INTEGRATION_NOT_CONNECTED',
        'The merchant disabled the integration; stop sending until it is enabled',
      );
    default:
      break;
  }
  if (merchant.paused)
    return reject('INTEGRATION_PAUSED', 'The merchant paused the integration; retry later');
  return { ok: true, merchant };
}

/**
 * Verifies `X-Signature` over the raw body under every active secret of the tenant, with the
 * SDK's own verifier: its error's `code` tells `INVALID_SIGNATURE` from `SIGNATURE_EXPIRED`.
 */
export function checkSignature(
  merchant: MerchantRecord,
  rawBody: Uint8Array,
  header: string | null,
  nowSeconds: number,
): Rejection | undefined {
  try {
    verifySignature(rawBody, header, merchant.secrets, { now: nowSeconds });
    return undefined;
  } catch (err) {
    if (!(err instanceof SignatureVerificationError)) throw err;
    return reject(err.code, err.message);
  }
}
