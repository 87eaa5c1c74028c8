import { signPayload } from '../platform-node/signature.js';

/** Options of `signTestHeader`. */
export interface SignTestHeaderOptions {
  /**
   * The `t=` to sign: unix seconds, or a `Date` (a stale one makes a `SIGNATURE_EXPIRED` case).
   * @default now
   */
  timestamp?: number | Date;
}

/**
 * An `X-Signature` value for a test request or a test delivery to your receiver: the SDK's own
 * `signPayload` (Node crypto), with a timestamp that may be a `Date`. Sign the exact bytes you
 * send. Pass a list of secrets to sign as the service does during a rotation (one `v1` each).
 *
 * @example
 * ```ts
 * import { signTestHeader } from 'loyalty-partner-sdk/testing';
 * const body = JSON.stringify({ eventType: 'IntegrationStatusChanged', payload: { status: 'Enabled' } });
 * const stale = signTestHeader(body, 'whsec_test', { timestamp: new Date(Date.now() - 10 * 60_000) });
 * const headers = { 'content-type': 'application/json', 'x-signature': stale, 'x-tenantid': 'merchant-1' };
 * ```
 */
export function signTestHeader(
  rawBody: string | Uint8Array,
  secret: string | readonly string[],
  options: SignTestHeaderOptions = {},
): string {
  const { timestamp } = options;
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  return signPayload(rawBody, secret, { timestamp: seconds });
}
