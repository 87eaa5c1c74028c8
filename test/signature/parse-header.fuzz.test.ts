// Fuzzing the parser, and verification behind it, with arbitrary input: the only thing that may
// ever leave them is a SignatureVerificationError. `npm run fuzz` sets FUZZ_RUNS=1000000; the
// default keeps the everyday suite quick.
import fc from 'fast-check';
import { parseSignatureHeader, SignatureVerificationError } from 'loyalty-partner-sdk/signature';
import { afterAll, describe, expect, it } from 'vitest';
import { builds } from './vectors.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000);
// A million runs take a while: allow about 0.2 ms per run, never less than the suite's default.
const TIMEOUT = Math.max(30_000, RUNS / 5);
// Runs go in batches, each with a fresh seed, yielding between them so that the test worker keeps
// answering the runner (one long synchronous loop makes vitest's RPC time out).
const BATCH = 50_000;
const HEX = '050f6072af90961c93ba40eeef8cb94587451018bd678efdb8623db88817304b';
let total = 0;

afterAll(() => {
  console.log(`parse-header fuzz: ${total} inputs in all, ${RUNS} runs per property (FUZZ_RUNS)`);
});

async function check<T extends unknown[]>(property: fc.IProperty<T>, runs: number): Promise<void> {
  for (let done = 0; done < runs; done += BATCH) {
    fc.assert(property, { numRuns: Math.min(BATCH, runs - done) });
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs `act`; a SignatureVerificationError or a return is fine, anything else fails the property. */
function onlySignatureErrors(act: () => unknown): boolean {
  total++;
  try {
    act();
    return true;
  } catch (error) {
    return error instanceof SignatureVerificationError && typeof error.reason === 'string';
  }
}

// Strings built from the header's own vocabulary reach far deeper than random text does.
const headerLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        't=',
        'v1=',
        'v0=',
        ',',
        ' ',
        '\t',
        '=',
        '1763630000',
        '-',
        '.',
        'e9',
        '0x',
        HEX,
        'é',
        '\u0000',
      ),
      fc.string({ unit: 'binary', maxLength: 4 }),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

describe('parseSignatureHeader under fuzzing', () => {
  it(
    'throws nothing but SignatureVerificationError for arbitrary strings',
    async () => {
      await check(
        fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (header) =>
          onlySignatureErrors(() => parseSignatureHeader(header)),
        ),
        RUNS,
      );
    },
    TIMEOUT,
  );

  it(
    'throws nothing but SignatureVerificationError for arbitrary values of any type',
    async () => {
      await check(
        fc.property(
          fc.anything({ withBigInt: true, withMap: true, withSet: true, withTypedArray: true }),
          (header) => onlySignatureErrors(() => parseSignatureHeader(header)),
        ),
        RUNS,
      );
    },
    TIMEOUT,
  );

  it(
    'keeps its invariants on header-like strings: one safe-integer t and 1 to 16 v1 values',
    async () => {
      await check(
        fc.property(headerLike, (header) =>
          onlySignatureErrors(() => {
            const { timestamp, signatures } = parseSignatureHeader(header);
            expect(Number.isSafeInteger(timestamp) && timestamp >= 0).toBe(true);
            expect(signatures.length).toBeGreaterThan(0);
            expect(signatures.length).toBeLessThanOrEqual(16);
            expect(signatures.every((signature) => signature.length > 0)).toBe(true);
          }),
        ),
        RUNS,
      );
    },
    TIMEOUT,
  );
});

describe.each(builds)('verifySignature of %s under fuzzing', (_, { verifySignature }) => {
  it(
    'throws nothing but SignatureVerificationError for any header, body and secrets',
    async () => {
      await check(
        fc.property(
          fc.oneof(headerLike, fc.anything()),
          fc.oneof(fc.string(), fc.uint8Array({ maxLength: 64 }), fc.anything()),
          fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.anything()),
          (header, body, secrets) =>
            onlySignatureErrors(() => verifySignature(body as never, header as never, secrets as never)),
        ),
        // HMACs run for the inputs that get that far, which costs more than parsing alone.
        Math.ceil(RUNS / 10),
      );
    },
    TIMEOUT,
  );
});
