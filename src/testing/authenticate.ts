import { SignatureVerificationError, verifySignature } from '../platform-node/signature.js';
import type { Environment } from './emulator-options.js';
import type { EmulatorRequest } from './exchange.js';
import {
  type EndpointOutcome,
  errorResponse,
  type Rejection,
  type ReplyContext,
  reject,
} from './http-reply.js';
import { connectionState, type MerchantRecord } from './merchant.js';
import type { MerchantStore } from './merchant-store.js';

/**
 * The checks every partner request passes first (spec 5.1 and 3.1): the API key selects the
 * tenant, then the connection state may refuse. A Disabled integration answers like one that is
 * not connected: the partner is to stop sending until the merchant enables it again.
 */
function authenticate(
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

// Verified with the SDK's own verifier under every active secret: its error's `code` tells
// `INVALID_SIGNATURE` from `SIGNATURE_EXPIRED`.
function checkSignature(
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

/** What admitting a request needs: the merchants and the deployment the emulator plays. */
export interface AdmitDeps {
  store: MerchantStore;
  environment: Environment;
}

/**
 * The API key and connection state, then `X-Signature` over the raw body: required on POST
 * /events; optional on the GETs, but one that is sent must verify, so a partner signing with a
 * wrong secret learns it there rather than at its first event. `skewSeconds`: the clock-skew fault.
 */
export function admit(
  request: EmulatorRequest,
  rawBody: Uint8Array,
  ctx: ReplyContext,
  deps: AdmitDeps,
  signature: 'required' | 'optional',
  skewSeconds = 0,
): { merchant: MerchantRecord } | EndpointOutcome {
  const auth = authenticate(deps.store, deps.environment, request.header('x-api-key'));
  if (!auth.ok) return { response: errorResponse(auth.code, auth.message, ctx) };
  const header = request.header('x-signature');
  const nowSeconds = Math.floor(ctx.now / 1000) + skewSeconds;
  const bad =
    header === null && signature === 'optional'
      ? undefined
      : checkSignature(auth.merchant, rawBody, header, nowSeconds);
  if (bad) return { response: errorResponse(bad.code, bad.message, ctx), tenantId: auth.merchant.tenantId };
  return { merchant: auth.merchant };
}
