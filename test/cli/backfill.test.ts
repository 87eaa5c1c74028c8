import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEmulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './bin.js';

const emulator = createEmulator();
let merchant: MerchantCredentials;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'backfill-'));
const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

beforeAll(async () => {
  const { url } = await emulator.listen();
  merchant = emulator.createMerchant();
  env = {
    LOYALTY_BASE_URL: url,
    LOYALTY_API_KEY: merchant.apiKey,
    LOYALTY_SIGNING_SECRET: merchant.signingSecret,
  };
});
afterAll(() => emulator.close());

describe('loyalty-partner backfill (the built bin, against an emulator in this process)', () => {
  it('sends the valid rows of a CSV file with their contract types and reports the bad ones, exit 1', async () => {
    const csv = file(
      'products.csv',
      [
        'externalProductId,name,price,isActive',
        'prod-latte,"Latte, large",14.50,true',
        'prod-mocha,Mocha,16,',
        'prod-bad,"Broken ""price""",abc,true',
        ',No id,3,false',
        'prod-tea,"Tea',
        'with mint",9.5,FALSE',
        '',
      ].join('\r\n'),
    );
    const report = join(dir, 'products-report.jsonl');
    const result = await runBin(['backfill', 'products', csv, '--report', report], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      [
        `FAIL backfill products from ${csv}: 5 rows read, 3 sent, 2 failed`,
        '  ProductsSyncedBatch is not handled yet (Planned): rows went as ProductSynced events',
        'failed rows:',
        '  line 4: price must be a finite number',
        '  line 5: externalProductId is required',
        `report: 2 problems in ${report}`,
        '',
      ].join('\n'),
    );
    expect(result.stderr).toMatch(/^backfill: 3 rows sent, 100%, [\d,]+ rows\/s, ETA 0:00\n$/);
    expect(readFileSync(report, 'utf8')).toBe(
      '{"line":4,"path":"price","message":"must be a finite number"}\n' +
        '{"line":5,"path":"externalProductId","message":"is required"}\n',
    );
    const products = emulator.merchant(merchant.tenantId).products;
    // Single events go four at a time: the service may see them in any order.
    products.sort((a, b) => a.externalProductId.localeCompare(b.externalProductId));
    expect(products).toEqual([
      { externalProductId: 'prod-latte', name: 'Latte, large', price: 14.5, isActive: true },
      { externalProductId: 'prod-mocha', name: 'Mocha', price: 16, isActive: true },
      { externalProductId: 'prod-tea', name: 'Tea\r\nwith mint', price: 9.5, isActive: false },
    ]);
  });

  it('reads JSON Lines, naming the line of each bad row, and never prints row values', async () => {
    const jsonl = file(
      'customers.jsonl',
      [
        '{"externalCustomerId":"cust-1","phone":"+966500000001","firstName":"Noura"}',
        '{"externalCustomerId":"cust-2"}',
        'not json',
        '',
        '{"externalCustomerId":"cust-3","phone":"+966500000003","email":"noura@example.com"}',
        '{"externalCustomerId":"cust-4","phone":"+966500000004"}',
      ].join('\n'),
    );
    const result = await runBin(['backfill', 'customers', jsonl], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`backfill customers from ${jsonl}: 5 rows read, 2 sent, 3 failed\n`);
    expect(result.stdout).toContain(
      'failed rows:\n  line 2: phone is required\n  line 3: is not valid JSON\n' +
        '  line 5: email is not a field of the contract (check its spelling)\n',
    );
    expect(result.stdout).not.toMatch(/\+9665|noura@/);
    const customers = emulator.merchant(merchant.tenantId).customers.map((c) => c.externalCustomerId);
    expect(customers.sort()).toEqual(['cust-1', 'cust-4']);
  });

  it('exits 0 when every row went, with batch events once the batch type is handled', async () => {
    emulator.shipHandler('BranchesSyncedBatch');
    const csv = file('branches.csv', 'externalBranchId,name,isActive\nb-1,Olaya,true\nb-2,Malqa,false\n');
    const before = emulator.events({ eventType: 'BranchesSyncedBatch' }).length;
    const result = await runBin(['backfill', 'branches', csv], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`PASS backfill branches from ${csv}: 2 rows read, 2 sent, 0 failed\n`);
    expect(emulator.events({ eventType: 'BranchesSyncedBatch' }).length).toBe(before + 1);
  });

  it('exits 2 for an unknown entity, an unknown format and a malformed CSV', async () => {
    const unknown = await runBin(['backfill', 'invoices', file('x.csv', 'a\n')], { env });
    expect(unknown).toMatchObject({
      code: 2,
      stderr:
        'error: backfill: expected <branches|customers|products|coupons> <file> (see loyalty-partner backfill --help)\n',
    });
    const format = await runBin(['backfill', 'coupons', file('coupons.txt', '')], { env });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('cannot tell the format');
    const broken = file('broken.csv', 'externalBranchId,name,isActive\nb-1,"Olaya,true\n');
    const malformed = await runBin(['backfill', 'branches', broken], { env });
    expect(malformed).toMatchObject({
      code: 2,
      stderr: `error: ${broken}: line 2: a quoted field is never closed\n`,
    });
  });
});
