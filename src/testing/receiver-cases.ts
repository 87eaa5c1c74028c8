import { createEnvelope, OUTBOUND_EVENT_TYPES, type OutboundEventType } from '../contract/index.js';
import { SIGNATURE_TOLERANCE_SECONDS as TOLERANCE } from '../contract/limits.js';
import { nodeHmac } from '../platform-node/node-hmac.js';
import { signPayload } from '../platform-node/signature.js';
import { samplePayload } from './sample-payloads.js';

/**
 * What a receiver must answer to a case, after sections 3.2, 5.2, 5.3 and 8 of the contract.
 * `accept`: 2xx. `reject-signature`: 401, not carrying `SIGNATURE_EXPIRED` (which the service
 * would retry). `reject-expired`: 401 whose body carries `SIGNATURE_EXPIRED`. `reject-payload`: a 4xx.
 *
 * @example
 * ```ts
 * import { receiverCases } from 'loyalty-partner-sdk/testing';
 * const mustRefuse = receiverCases.filter((c) => c.verdict !== 'accept').map((c) => c.id);
 * ```
 */
export type ReceiverVerdict = 'accept' | 'reject-signature' | 'reject-expired' | 'reject-payload';

/**
 * What a case builds its request from, the receiver's secret and tenant and the time to sign at.
 *
 * @example
 * ```ts
 * import type { ReceiverCaseInput } from 'loyalty-partner-sdk/testing';
 * const input: ReceiverCaseInput = { secret: 'whsec_test', tenantId: 'merchant-1', now: 1763630000, eventId: '019aa1f2-0000-7000-8000-000000000001' };
 * ```
 */
export interface ReceiverCaseInput {
  /** The tenant's signing secret, as the receiver has it. */
  secret: string;
  /** Sent as `X-TenantId`. */
  tenantId: string;
  /** Unix seconds to sign at (a case shifts it for its clock-skew checks). */
  now: number;
  /** An event id for this case; fixed in the published vectors, fresh in a live check. */
  eventId: string;
}

/**
 * One request of a case, with the exact body text and every header, as the service sends them.
 *
 * @example
 * ```ts
 * import type { ReceiverCaseRequest } from 'loyalty-partner-sdk/testing';
 * const send = (url: string, r: ReceiverCaseRequest) => fetch(url, { method: 'POST', headers: r.headers, body: r.body });
 * ```
 */
export interface ReceiverCaseRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * One delivery case of the conformance kit, with what is sent, what the receiver must answer and
 * what to fix when it does not.
 *
 * @example
 * ```ts
 * import { receiverCases } from 'loyalty-partner-sdk/testing';
 * const stale = receiverCases.find((c) => c.id === 'timestamp-301s-old');
 * const request = stale?.request({ secret: 'whsec_test', tenantId: 'merchant-1', now: 1763630000, eventId: '019aa1f2-0000-7000-8000-000000000001' });
 * ```
 */
export interface ReceiverCase {
  /** Stable, kebab-case: the name of the published vector file. */
  id: string;
  /** What the case checks, in words a person understands. */
  name: string;
  verdict: ReceiverVerdict;
  /** What to change in the receiver when the case fails. */
  fix: string;
  /** `again`: the same request twice in a row; `at-once`: three copies in parallel. */
  send?: 'again' | 'at-once';
  request(input: ReceiverCaseInput): ReceiverCaseRequest;
}

/** An envelope of the type's sample payload, as JSON.stringify writes it (the service's bytes). */
function envelopeText(eventType: OutboundEventType, input: ReceiverCaseInput, entityId?: string): string {
  const envelope = createEnvelope(eventType, samplePayload(eventType), {
    eventId: input.eventId,
    occurredAt: new Date(input.now * 1000).toISOString(),
    entityId: entityId ?? `sample-${eventType}`,
  });
  return JSON.stringify(envelope);
}

/** JSON as no serialiser writes it: keys reversed, uneven spacing, non-ASCII as `\u` escapes. */
function unusualBytes(input: ReceiverCaseInput): string {
  const envelope = JSON.parse(envelopeText('IntegrationStatusChanged', input, 'café ☕ كافيه')) as object;
  const asciiOnly = (json: string) =>
    json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const members = Object.entries(envelope)
    .reverse()
    .map(([key, value]) => `"${key}" :  ${asciiOnly(JSON.stringify(value, null, 1))}`);
  return `{\n\t${members.join(' ,\n\t')}\n}\n`;
}

function signed(body: string, input: ReceiverCaseInput, signature: string | null): ReceiverCaseRequest {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-tenantid': input.tenantId,
    'x-correlation-id': `check-${input.eventId}`,
  };
  if (signature !== null) headers['x-signature'] = signature;
  return { body, headers };
}

const sign = (body: string, input: ReceiverCaseInput, skew = 0, secrets: string | string[] = input.secret) =>
  signed(body, input, signPayload(body, secrets, { timestamp: input.now + skew }));

const status = (input: ReceiverCaseInput) => envelopeText('IntegrationStatusChanged', input);

/** One `v1` value: the hex HMAC of `<t>.<body>` under `secret`. */
const macOf = (body: string, secret: string, t: number) => nodeHmac.mac(secret, String(t), body);

/** A header of parts in the order given, each `v1` the HMAC under its secret at `input.now`. */
function signedParts(body: string, input: ReceiverCaseInput, parts: readonly string[]): ReceiverCaseRequest {
  const header = parts.map((part) => {
    const [scheme, secret] = part.split(':') as [string, string];
    if (scheme === 't') return `t=${input.now}`;
    return `${scheme}=${macOf(body, secret === 'right' ? input.secret : `${secret}-${input.secret}`, input.now)}`;
  });
  return signed(body, input, header.join(','));
}

const verifyRawBytes =
  'verify the HMAC over the raw request bytes as received, before any JSON parsing; never over a re-serialised object';
const compareEveryV1 =
  'compare against every v1= value in X-Signature, wherever it stands (constant time); any match passes. ' +
  'Do not read the header into a map (the last v1 wins) or keep only the first v1';
const v1ByName =
  'pick the v1= parts by name and ignore other schemes (v0=, a future v2=); never take a part by its position';
const answer401 =
  'answer 401 when X-Signature is missing, malformed, has an empty v1=, or no v1 matches the HMAC of the raw body';
const headerRule =
  'parse X-Signature as comma-separated parts: exactly one t=<decimal digits> and at least one non-empty v1=<hex> ' +
  'are required; anything else is answered 401 (INVALID_SIGNATURE), never 400 or 5xx';

// Probed just inside and just outside the tolerance on both sides: any other window fails a case.
/** Two seconds inside: the receiver's clock may tick once or twice between signing and checking. */
const INSIDE = TOLERANCE - 2;
const OLD_OUTSIDE = TOLERANCE + 1;
/** One second more ahead: a tick of the receiver's clock brings a future `t` closer. */
const AHEAD_OUTSIDE = TOLERANCE + 2;
const tolerance = `allow the timestamp to differ from now by up to ${TOLERANCE} s in either direction, no less and no more`;

const authentic: ReceiverCase[] = OUTBOUND_EVENT_TYPES.map((eventType) => ({
  id: `authentic-${eventType}`,
  name: `accepts an authentic ${eventType} delivery`,
  verdict: 'accept',
  fix: `answer 2xx to every verified delivery, ${eventType} included (${verifyRawBytes}; take the secret of the X-TenantId tenant)`,
  request: (input) => sign(envelopeText(eventType, input), input),
}));

// The matching v1 first, in the middle and last among others: a receiver must compare them all.
const severalV1: ReceiverCase[] = (['first', 'middle', 'last'] as const).map((where, at) => {
  const parts = ['v1:old', 'v1:older'];
  parts.splice(at, 0, 'v1:right');
  return {
    id: `v1-${where}`,
    name: `accepts several v1 values when the matching one is ${where === 'middle' ? 'in the middle' : where}`,
    verdict: 'accept',
    fix: compareEveryV1,
    request: (input) => signedParts(status(input), input, ['t', ...parts]),
  };
});

/**
 * The delivery cases of the conformance kit, in the order `check-receiver` sends them. The same
 * list drives the SDK's own adapter suite and the published vectors (`contract/vectors/*.json`).
 *
 * @example
 * ```ts
 * import { receiverCases } from 'loyalty-partner-sdk/testing';
 * for (const c of receiverCases) console.log(c.id, c.verdict);
 * ```
 */
export const receiverCases: readonly ReceiverCase[] = [
  ...authentic,
  {
    id: 'duplicate-again',
    name: 'accepts the same delivery again (a redelivery of one eventId)',
    verdict: 'accept',
    send: 'again',
    fix: 'answer 2xx to an eventId already handled, without handling it twice (any other 4xx makes the service give up)',
    request: (input) => sign(status(input), input),
  },
  {
    id: 'duplicate-at-once',
    name: 'accepts three copies of one delivery sent at once',
    verdict: 'accept',
    send: 'at-once',
    fix: 'answer 2xx to concurrent copies (or 503 while the first is still being handled); never 409 or another 4xx',
    request: (input) => sign(status(input), input),
  },
  {
    id: 'raw-bytes',
    name: 'verifies the raw bytes (unusual spacing, escaped unicode, key order)',
    verdict: 'accept',
    fix: verifyRawBytes,
    request: (input) => sign(unusualBytes(input), input),
  },
  ...severalV1,
  {
    id: 'v1-among-other-schemes',
    name: 'accepts a matching v1 among parts of other schemes (v0=, v2=)',
    verdict: 'accept',
    fix: v1ByName,
    request: (input) =>
      signedParts(status(input), input, ['v0:legacy', 't', 'v2:next', 'v1:right', 'v0:other']),
  },
  {
    id: `skew-${INSIDE}s-old`,
    name: `accepts a signature ${INSIDE} s old (just inside the ${TOLERANCE} s tolerance)`,
    verdict: 'accept',
    fix: tolerance,
    request: (input) => sign(status(input), input, -INSIDE),
  },
  {
    id: `skew-${INSIDE}s-ahead`,
    name: `accepts a signature ${INSIDE} s ahead (just inside the ${TOLERANCE} s tolerance)`,
    verdict: 'accept',
    fix: `${tolerance}; the future included`,
    request: (input) => sign(status(input), input, INSIDE),
  },
  {
    id: 'tampered-body',
    name: 'rejects a body changed after signing',
    verdict: 'reject-signature',
    fix: answer401,
    request: (input) => {
      const { headers } = sign(status(input), input);
      return { body: status(input).replace('"Enabled"', '"Disabled"'), headers };
    },
  },
  {
    id: 'wrong-secret',
    name: 'rejects a delivery signed with another secret',
    verdict: 'reject-signature',
    fix: answer401,
    request: (input) => sign(status(input), input, 0, `wrong-${input.secret}`),
  },
  {
    id: 'missing-signature',
    name: 'rejects a delivery without X-Signature',
    verdict: 'reject-signature',
    fix: answer401,
    request: (input) => signed(status(input), input, null),
  },
  {
    id: 'malformed-signature',
    name: 'rejects an X-Signature not made of comma-separated parts',
    verdict: 'reject-signature',
    fix: headerRule,
    request: (input) =>
      signed(status(input), input, `v1=${macOf(status(input), input.secret, input.now)};t=${input.now}`),
  },
  {
    id: 'missing-timestamp',
    name: 'rejects an X-Signature without t=',
    verdict: 'reject-signature',
    fix: headerRule,
    request: (input) => signed(status(input), input, `v1=${macOf(status(input), input.secret, input.now)}`),
  },
  {
    id: 'timestamp-not-digits',
    name: 'rejects an X-Signature whose t= is not decimal digits',
    verdict: 'reject-signature',
    fix: headerRule,
    request: (input) => {
      // Signed over the t text as sent, so only a receiver that checks the digits refuses it.
      const t = new Date(input.now * 1000).toISOString();
      const body = status(input);
      return signed(body, input, `t=${t},v1=${nodeHmac.mac(input.secret, t, body)}`);
    },
  },
  {
    id: 'missing-v1',
    name: 'rejects an X-Signature without v1= (a right HMAC under another scheme only)',
    verdict: 'reject-signature',
    fix: headerRule,
    request: (input) => signedParts(status(input), input, ['t', 'v0:right']),
  },
  {
    id: 'empty-v1',
    name: 'rejects an X-Signature whose v1= is empty',
    verdict: 'reject-signature',
    fix: answer401,
    request: (input) => signed(status(input), input, `t=${input.now},v1=`),
  },
  {
    id: 'v1-not-hex',
    name: 'rejects an X-Signature whose v1= is not hex',
    verdict: 'reject-signature',
    fix: headerRule,
    request: (input) => signed(status(input), input, `t=${input.now},v1=${'zq'.repeat(32)}`),
  },
  {
    id: `timestamp-${OLD_OUTSIDE}s-old`,
    name: `rejects a signature ${OLD_OUTSIDE} s old (just outside the tolerance) with 401 SIGNATURE_EXPIRED`,
    verdict: 'reject-expired',
    fix: `reject a timestamp more than ${TOLERANCE} s old with 401 and SIGNATURE_EXPIRED in the body (the service retries only that 401)`,
    request: (input) => sign(status(input), input, -OLD_OUTSIDE),
  },
  {
    id: `timestamp-${AHEAD_OUTSIDE}s-ahead`,
    name: `rejects a signature ${AHEAD_OUTSIDE} s ahead (just outside the tolerance) with 401 SIGNATURE_EXPIRED`,
    verdict: 'reject-expired',
    fix: `reject a timestamp more than ${TOLERANCE} s in the future too, with 401 and SIGNATURE_EXPIRED in the body`,
    request: (input) => sign(status(input), input, AHEAD_OUTSIDE),
  },
  {
    id: 'not-json',
    name: 'refuses a signed body that is not JSON with a 4xx',
    verdict: 'reject-payload',
    fix: 'answer 400 (e.g. INVALID_PAYLOAD) to a verified body that does not parse; never 2xx, which drops it silently',
    request: (input) => sign(`{"eventType": "IntegrationStatusChanged", "payload": {"status": "Enab`, input),
  },
];
