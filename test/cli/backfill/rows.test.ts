import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileSyntaxError } from '../../../src/cli/backfill/file-syntax-error.js';
import { csvRows, jsonLinesRows, type RowResult } from '../../../src/cli/backfill/rows.js';
import { BACKFILL_TARGETS } from '../../../src/cli/backfill/targets.js';
import { cli } from '../run.js';

const dir = mkdtempSync(join(tmpdir(), 'rows-'));
const dryRun = (entity: string, name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return cli(['backfill', entity, join(dir, name), '--dry-run']);
};
const target = (name: string) => {
  const found = BACKFILL_TARGETS.get(name);
  if (!found) throw new Error(`no target ${name}`);
  return found;
};

describe('backfill targets', () => {
  it('are the four batch types of the contract, with the fields of their items', () => {
    expect([...BACKFILL_TARGETS.values()].map((t) => [t.name, t.batchType, t.singleType])).toEqual([
      ['branches', 'BranchesSyncedBatch', 'BranchSynced'],
      ['customers', 'CustomersSyncedBatch', 'CustomerSynced'],
      ['products', 'ProductsSyncedBatch', 'ProductSynced'],
      ['coupons', 'CouponsSyncedBatch', 'CouponSynced'],
    ]);
    expect(Object.fromEntries(target('coupons').fields)).toEqual({
      externalCouponId: 'text',
      name: 'text',
      discountType: 'text',
      discountValue: 'number',
      isLoyaltyProgramCoupon: 'boolean',
    });
  });
});

describe('CSV rows', () => {
  it('become the types of the contract: numbers, booleans in any case, and empty cells omitted', async () => {
    const rows: RowResult[] = [];
    const text =
      'externalCouponId,name,discountType,discountValue,isLoyaltyProgramCoupon\n' +
      'k-1,Ten off,FixedAmount, 10.5 ,TRUE\n' +
      'k-2,Five pc,Percentage,5,\n';
    for await (const row of csvRows([text], target('coupons'))) rows.push(row);
    expect(rows).toEqual([
      {
        line: 2,
        item: {
          externalCouponId: 'k-1',
          name: 'Ten off',
          discountType: 'FixedAmount',
          discountValue: 10.5,
          isLoyaltyProgramCoupon: true,
        },
      },
      {
        line: 3,
        item: { externalCouponId: 'k-2', name: 'Five pc', discountType: 'Percentage', discountValue: 5 },
      },
    ]);
  });

  it("that do not convert are left for the contract to name: the field path and the contract's message", async () => {
    const result = await dryRun(
      'products',
      'p.csv',
      'externalProductId,name,price,isActive\np-1,Latte,0x10,yes\np-2,Mocha,-3,true\np-3,Tea,7\n',
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `FAIL backfill products from ${join(dir, 'p.csv')}: 3 rows read, 0 sent, 3 failed`,
        '  dry run: 0 valid rows, nothing sent',
        'failed rows:',
        '  line 2: price must be a finite number',
        '  line 2: isActive must be true or false',
        '  line 3: price must not be negative',
        '  line 4: has 3 fields where the header has 4',
        '',
      ].join('\n'),
    );
  });

  it('report a required field left empty as required, and pass an empty optional one', async () => {
    const result = await dryRun(
      'customers',
      'c.csv',
      'externalCustomerId,phone,firstName,lastName\nc-1,+966500000001,,\nc-2,,Noura,\n',
    );
    expect(result.stdout).toContain('2 rows read, 0 sent, 1 failed\n  dry run: 1 valid row, nothing sent\n');
    expect(result.stdout).toContain('  line 3: phone is required\n');
  });

  it('with a column the contract does not know are refused at the header, exit 2', async () => {
    const result = await dryRun('branches', 'b.csv', 'externalBranchId,name,active\nb-1,Olaya,true\n');
    expect(result).toMatchObject({
      code: 2,
      stderr:
        'error: the CSV header\'s column "active" is not a field of BranchSynced (externalBranchId, name, isActive)\n',
    });
  });

  it('need no credentials for a dry run, and exit 0 when every row is valid', async () => {
    const result = await dryRun('branches', 'ok.csv', 'externalBranchId,name,isActive\nb-1,Olaya,true\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PASS backfill branches from \S+: 1 row read, 0 sent, 0 failed\n/);
  });
});

describe('JSON Lines rows', () => {
  const all = async (rows: AsyncIterable<RowResult>) => {
    const out: RowResult[] = [];
    for await (const row of rows) out.push(row);
    return out;
  };
  const branch = fc.record({
    externalBranchId: fc.string({ minLength: 1, maxLength: 12 }),
    name: fc.string({ unit: 'grapheme', maxLength: 12 }),
    isActive: fc.boolean(),
  });

  it('are the same rows however the bytes are cut, with LF or CRLF and blank lines, each with its line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(branch, fc.constant(null)), { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (items, crlf, cuts) => {
          const eol = crlf ? '\r\n' : '\n';
          const text = items.map((item) => (item === null ? '' : JSON.stringify(item))).join(eol);
          const bytes = new TextEncoder().encode(text);
          const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...at].map((from, k) => bytes.subarray(from, [...at, bytes.length][k]));
          const rows = await all(jsonLinesRows(chunks, target('branches')));
          const expected = items.flatMap((item, k) => (item === null ? [] : [{ line: k + 1 }]));
          expect(rows.map((row) => ({ line: row.line }))).toEqual(expected);
          for (const row of rows) {
            const item = items[row.line - 1]!;
            if ('item' in row) expect(row.item).toEqual(item);
            else expect(row.failures.length).toBeGreaterThan(0);
          }
        },
      ),
    );
  });

  it('stop at a line past the limit, whole or still arriving, naming it; the lines before it are read', async () => {
    const ok = JSON.stringify({ externalBranchId: 'b-1', name: 'One', isActive: true });
    for (const tail of ['\n', '']) {
      const rows: RowResult[] = [];
      const reading = (async () => {
        for await (const row of jsonLinesRows(
          [`${ok}\n`, `"${'x'.repeat(200)}`, tail],
          target('branches'),
          100,
        ))
          rows.push(row);
      })();
      await expect(reading).rejects.toThrow(FileSyntaxError);
      await expect(reading).rejects.toThrow('line 2: a line longer than 100 characters');
      expect(rows).toHaveLength(1);
    }
  });
});
