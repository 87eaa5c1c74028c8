// The Node build's `verifySignature` (Node crypto) and `verifySignatureAsync` (Web Crypto, what
// the Web build has) must give the same verdict on every input: a header one accepts and the
// other refuses is a signature whose validity depends on where it is checked. `npm run fuzz`
// raises FUZZ_RUNS; the default keeps the everyday suite quick.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import {
  SignatureVerificationError,
  signPayload,
  verifySignature,
  verifySignatureAsync,
} from 'loyalty-partner-sdk/signature';
import { describe, expect, it } from 'vitest';

const RUNS = Math.min(Number(process.env.FUZZ_RUNS ?? 3_000), 200_000);
const NOW = 1_763_630_000;

/** The verdict, comparable across the two: the result, or the refusal's reason. */
type Verdict = { ok: { timestamp: number; secretIndex: number } } | { refused: string };

function verdictOf(act: () => { timestamp: number; secretIndex: number }): Verdict {
  try {
    return { ok: act() };
  } catch (err) {
    if (err instanceof SignatureVerificationError) return { refused: err.reason };
    throw err;
  }
}

async function asyncVerdictOf(
  act: () => Promise<{ timestamp: number; secretIndex: number }>,
): Promise<Verdict> {
  try {
    return { ok: await act() };
  } catch (err) {
    if (err instanceof SignatureVerificationError) return { refused: err.reason };
    throw err;
  }
}

// Characters whose low byte is a hex digit ('š' is U+0161, 'Ａ' U+FF21...): Buffer's native hex
// decoder reads them as that digit.
const lookAlike = (digit: string) =>
  fc.integer({ min: 1, max: 0xff }).map((high) => String.fromCharCode((high << 8) | digit.charCodeAt(0)));

/** A genuine digest of `body`, with some of its characters replaced by look-alikes or case changes. */
const spelling = (digest: string) =>
  fc
    .array(fc.tuple(fc.nat({ max: 63 }), fc.constantFrom('lookalike', 'upper', 'junk')), { maxLength: 3 })
    .chain((edits) =>
      fc
        .tuple(
          ...edits.map(([i, kind]) =>
            kind === 'lookalike'
              ? lookAlike(digest[i]!)
              : fc.constant(kind === 'upper' ? digest[i]!.toUpperCase() : 'z'),
          ),
        )
        .map((replacements) => {
          const chars = [...digest];
          edits.forEach(([i], k) => {
            chars[i] = replacements[k]!;
          });
          return chars.join('');
        }),
    );

const secrets = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.array(fc.string({ maxLength: 12 }), { minLength: 0, maxLength: 3 }),
  fc.constantFrom(' ', '\t\n', ''),
);

describe('verifySignature and verifySignatureAsync agree', () => {
  it(`on ${RUNS} fuzzed headers, bodies and secrets: the same result or the same reason`, async () => {
    const cases = fc
      .record({
        body: fc.string({ maxLength: 64 }),
        secret: secrets,
        t: fc.integer({ min: NOW - 400, max: NOW + 400 }),
        extra: fc.string({ maxLength: 2 }),
      })
      .chain((c) => {
        const key = (typeof c.secret === 'string' ? c.secret : c.secret[0]) || 'k';
        const digest = createHmac('sha256', key).update(`${c.t}.`).update(c.body).digest('hex');
        return spelling(digest).map((v1) => ({ ...c, header: `t=${c.t},v1=${v1}${c.extra}` }));
      });
    await fc.assert(
      fc.asyncProperty(cases, async ({ body, secret, header }) => {
        const options = { now: NOW };
        const sync = verdictOf(() => verifySignature(body, header, secret, options));
        const async = await asyncVerdictOf(() => verifySignatureAsync(body, header, secret, options));
        expect(sync).toEqual(async);
      }),
      { numRuns: RUNS },
    );
  });

  it('on a genuine digest spelt with a character above U+00FF: both refuse it', async () => {
    const body = '{"eventType":"LoyaltyRuleChanged"}';
    let header = signPayload(body, 'whsec_k', { timestamp: NOW });
    const start = header.indexOf('v1=') + 3;
    const at = start + header.slice(start).search(/[a-f]/);
    header = `${header.slice(0, at)}${String.fromCharCode(0x100 | header.charCodeAt(at))}${header.slice(at + 1)}`;
    const sync = verdictOf(() => verifySignature(body, header, 'whsec_k', { now: NOW }));
    const async = await asyncVerdictOf(() => verifySignatureAsync(body, header, 'whsec_k', { now: NOW }));
    expect(sync).toEqual({ refused: 'no_match' });
    expect(async).toEqual(sync);
  });
});
