// The known-answer vectors (a copy of shared/vectors/signature.json, computed with an
// independent HMAC implementation) and the synchronous build every vector runs through.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as web from 'loyalty-partner-sdk/signature';
import * as node from '../../src/platform-node/signature.js';

export interface SignVector {
  name: string;
  secrets: string[];
  timestamp: number;
  bodyHex: string;
  header: string;
}

export interface VerifyVector {
  name: string;
  header: string | null;
  secrets: string[];
  now: number;
  bodyHex: string;
  expect: 'ok' | 'INVALID_SIGNATURE' | 'SIGNATURE_EXPIRED';
  reason?: web.SignatureVerificationError['reason'];
}

export const vectors = JSON.parse(
  readFileSync(new URL('../fixtures/signature-vectors.json', import.meta.url), 'utf8'),
) as { toleranceSeconds: number; sign: SignVector[]; verify: VerifyVector[] };

/** The vector's raw body as bytes, never decoded. */
export const bodyOf = (vector: { bodyHex: string }): Uint8Array =>
  new Uint8Array(Buffer.from(vector.bodyHex, 'hex'));

/**
 * The synchronous functions: Node crypto's, served by the `node` export condition. (The Web
 * build's synchronous names only point to the asynchronous ones: see web-build.test.ts.)
 */
export const builds = [['the Node build', node]] as const;

/** HMAC-SHA256 of `<t>.` + body computed with node:crypto alone, independent of the SDK. */
export function referenceV1(secret: string, t: string | number, body: Uint8Array | string): string {
  return createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
}
