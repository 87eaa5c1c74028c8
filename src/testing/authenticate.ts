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
import { type ConnectionState, connectionState, type MerchantRecord } from './merchant.js';
import type { MerchantStore } from './merchant-store.js';

// A Disabled integration answers as not connected: the partner stops sending until it is enabled.
const REFUSED_STATES: Partial<Record<ConnectionState, Rejection>> = {
  NeverActivated: reject('INTEGRATION_NOT_CONNECTED', 'The merchant has not activated the integration'),
  Disconnected: reject(
    'INTEGRATION_ALREADY_DISCONNECTED',
    'The merchant disconnected; fresh credentials are required',
  ),
  Disabled: reject(
    'INTEGRATION_NOT_CONNECTED',
    'The merchant disabled the integration; stop sending until it is enabled',
  ),
};

/** The checks every partner request passes first (spec 5.1 and 3.1): the API key, then the connection state. */
function authenticate(
  deps: AdmitDeps,
  apiKey: string | null,
): { ok: true; merchant: MerchantRecord } | Rejection {
  if (!apiKey) return reject('MISSING_API_KEY', 'The X-Api-Key header is missing');
  const merchant = deps.store.byApiKey(apiKey);
  if (!merchant || merchant.environment !== deps.environment) {
    return reject(
      'INVALID_API_KEY',
      `The API key is unknown, revoked, or not one of the ${deps.environment} environment`,
    );
  }
  const refused = REFUSED_STATES[connectionState(merchant)];
  if (refused) return refused;
  if (merchant.paused)
    return reject('INTEGRATION_PAUSED', 'The merchant paused the integration; retry later');
  return { ok: true, merchant };
}

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
  const auth = authenticate(deps, request.header('x-api-key'));
  if (!auth.ok) return { response: errorResponse(auth.code, auth.message, ctx) };
  const { merchant } = auth;
  const header = request.header('x-signature');
  if (header === null && signature === 'optional') return { merchant };
  // The SDK's own verifier, under every active secret: its error's `code` is the refusal's.
  try {
    verifySignature(rawBody, header, merchant.secrets, { now: Math.floor(ctx.now / 1000) + skewSeconds });
    return { merchant };
  } catch (err) {
    if (!(err instanceof SignatureVerificationError)) throw err;
    return { response: errorResponse(err.code, err.message, ctx), tenantId: merchant.tenantId };
  }
}
