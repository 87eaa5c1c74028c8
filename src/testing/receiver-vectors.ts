import { type ReceiverCase, type ReceiverVerdict, receiverCases } from './receiver-cases.js';

/** The secret every published vector is signed with. A test value: never use it for a tenant. */
export const VECTOR_SECRET = 'whsec_conformance_vectors_test_only';
const VECTOR_TENANT = 'merchant-vectors';
/** 2025-11-20T09:13:20Z: the `now` every vector is signed at and must be judged at. */
const VECTOR_NOW = 1763630000;

/**
 * One published test vector, a delivery exactly as sent with the time to judge it at and the
 * answer a correct receiver gives. For partners who test their receiver in their own CI without Node.
 *
 * @example
 * ```ts
 * import { receiverVectors } from 'loyalty-partner-sdk/testing';
 * const [first] = receiverVectors();
 * console.log(first?.request.headers['x-signature'], first?.expected.status);
 * ```
 */
export interface ReceiverVector {
  id: string;
  name: string;
  /** Judge the signature as if the clock read these unix seconds. */
  now: number;
  secret: string;
  tenantId: string;
  /** `again`: send the request twice; `at-once`: three copies in parallel. */
  send?: 'again' | 'at-once';
  request: {
    method: 'POST';
    headers: Record<string, string>;
    /** The exact body, as UTF-8 text and as base64 of its bytes. */
    body: string;
    bodyBase64: string;
  };
  /** The status class, and the body code a receiver answers with (required for SIGNATURE_EXPIRED). */
  expected: { verdict: ReceiverVerdict; status: '2xx' | '401' | '4xx'; code?: string };
  /** What to change in the receiver when it answers otherwise. */
  fix: string;
}

const EXPECTED: Record<ReceiverVerdict, Omit<ReceiverVector['expected'], 'verdict'>> = {
  accept: { status: '2xx' },
  'reject-signature': { status: '401', code: 'INVALID_SIGNATURE' },
  'reject-expired': { status: '401', code: 'SIGNATURE_EXPIRED' },
  'reject-payload': { status: '4xx', code: 'INVALID_PAYLOAD' },
};

/**
 * The conformance cases as fixed vectors (fixed time, event ids and a published test secret),
 * as the package publishes them in `contract/vectors/<id>.json`.
 *
 * @example
 * ```ts
 * import { receiverVectors } from 'loyalty-partner-sdk/testing';
 * for (const vector of receiverVectors()) console.log(vector.id, vector.expected.status);
 * ```
 */
export function receiverVectors(cases: readonly ReceiverCase[] = receiverCases): ReceiverVector[] {
  return cases.map((item, index) => {
    const eventId = `019aa1f2-0000-7000-8000-${String(index + 1).padStart(12, '0')}`;
    const { body, headers } = item.request({
      secret: VECTOR_SECRET,
      tenantId: VECTOR_TENANT,
      now: VECTOR_NOW,
      eventId,
    });
    return {
      id: item.id,
      name: item.name,
      now: VECTOR_NOW,
      secret: VECTOR_SECRET,
      tenantId: VECTOR_TENANT,
      ...(item.send && { send: item.send }),
      request: { method: 'POST', headers, body, bodyBase64: Buffer.from(body, 'utf8').toString('base64') },
      expected: { verdict: item.verdict, ...EXPECTED[item.verdict] },
      fix: item.fix,
    };
  });
}
