import { createHash } from 'node:crypto';
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
const file = (name: string, content: string | Uint8Array) => {
  writeFileSync(join(dir, name), content);
  return join(dir, name);
};
/** `before`, a Latin-1 é (one byte that is not UTF-8), then `after`. */
const latin1 = (before: string, after: string) =>
  Buffer.concat([Buffer.from(before), Buffer.from([0xe9]), Buffer.from(after)]);

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
    const sha256 = createHash('sha256').update(readFileSync(csv)).digest('hex');
    expect(readFileSync(report, 'utf8')).toBe(
      `${JSON.stringify({ file: csv, sha256 })}\n` +
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
  it('reports a row with a stray quote in an unquoted field by its line, sends the others, exit 1', async () => {
    const csv = file(
      'pizza.csv',
      'externalProductId,name,price,isActive\np-1,12" pizza,10,true\np-2,Tea,3,true\np-3,Cake,5,true\n',
    );
    const result = await runBin(['backfill', 'products', csv], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`FAIL backfill products from ${csv}: 3 rows read, 2 sent, 1 failed`);
    expect(result.stdout).toContain('  line 2: a double quote inside a field that is not quoted');
    const ids = emulator.merchant(merchant.tenantId).products.map((p) => p.externalProductId);
    expect(ids).toEqual(expect.arrayContaining(['p-2', 'p-3']));
    expect(ids).not.toContain('p-1');
  });

  it('stops at bytes that are not UTF-8 and at a row past --max-row-size, naming the line, exit 2', async () => {
    const csv = file(
      'latin1.csv',
      latin1(
        'externalBranchId,name,isActive\nb-utf8-1,One,true\nb-utf8-2,Caf',
        ',true\nb-utf8-3,Three,true\n',
      ),
    );
    const notUtf8 = await runBin(['backfill', 'branches', csv], { env });
    expect(notUtf8.code).toBe(2);
    expect(notUtf8.stdout).toContain(`stopped reading ${csv}: line 3: bytes that are not UTF-8`);
    const names = emulator.merchant(merchant.tenantId).branches.map((b) => b.externalBranchId);
    expect(names).toContain('b-utf8-1');
    expect(names).not.toContain('b-utf8-2');
    expect(names.join()).not.toContain('\ufffd');

    const unclosed = file('unclosed.csv', `externalBranchId,name,isActive\nb-long,"${'x'.repeat(5000)}`);
    const tooLong = await runBin(['backfill', 'branches', unclosed, '--max-row-size', '1000'], { env });
    expect(tooLong).toMatchObject({
      code: 2,
      stderr: `error: ${unclosed}: line 2: a row longer than 1,000 characters (an unclosed quote?): pass --max-row-size to allow longer rows\n`,
    });
  });

  it('reads JSON Lines with the same bounds: a line past --max-row-size or bytes that are not UTF-8 stop it there, exit 2', async () => {
    const line = (id: string, name: string) => JSON.stringify({ externalBranchId: id, name, isActive: true });
    const long = file('long.jsonl', `${line('b-jl-1', 'One')}\r\n${line('b-jl-2', 'x'.repeat(5000))}\n`);
    const tooLong = await runBin(['backfill', 'branches', long, '--max-row-size', '1000'], { env });
    expect(tooLong.code).toBe(2);
    expect(tooLong.stdout).toContain(
      `stopped reading ${long}: line 2: a line longer than 1,000 characters: pass --max-row-size to allow longer lines`,
    );
    const jsonl = file(
      'latin1.jsonl',
      latin1(`${line('b-jl-3', 'Three')}\n{"externalBranchId":"b-jl-4","name":"Caf`, '","isActive":true}\n'),
    );
    const notUtf8 = await runBin(['backfill', 'branches', jsonl], { env });
    expect(notUtf8.code).toBe(2);
    expect(notUtf8.stdout).toContain(`stopped reading ${jsonl}: line 2: bytes that are not UTF-8`);
    const names = emulator.merchant(merchant.tenantId).branches.map((b) => b.externalBranchId);
    expect(names).toEqual(expect.arrayContaining(['b-jl-1', 'b-jl-3']));
    expect(names).not.toContain('b-jl-2');
    expect(names).not.toContain('b-jl-4');
  });
});
