import { join } from 'node:path';
import { LoyaltyClient, LoyaltyValidationError } from 'loyalty-partner-sdk';
import { createOutbox, fileStore, type LocalStore, memoryStore } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sale } from '../support/outbox-fixtures.js';
import { rejectionOf } from '../support/rejection.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { useTempDir } from '../support/temp-dir.js';

/*
 * Text PostgreSQL cannot store (U+0000) or that is not UTF-8 at all (a lone surrogate) used to
 * pass validation and fail the outbox's INSERT inside the caller's transaction: the transaction
 * was aborted, and a caller who caught the enqueue error and committed lost the sale. It is now
 * refused by the contract's own check, before any statement, naming the field.
 */

const UNSTORABLE = [
  ['U+0000', 'cust\u0000-1'],
  ['a lone high surrogate', 'cust-\uD83D'],
  ['a lone low surrogate', '\uDE00cust'],
] as const;

const client = new LoyaltyClient({
  baseUrl: 'http://127.0.0.1:9',
  apiKey: 'lk_test_unused',
  signingSecret: 'whsec_unused',
});

const refusal = (promise: Promise<unknown>) => rejectionOf(promise, LoyaltyValidationError);

describeWithPostgres('enqueue({ tx }) of text PostgreSQL cannot store', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('outbox_text');
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE "${schema}".sales (invoice text PRIMARY KEY)`);
  });
  afterAll(async () => {
    await pool.end();
  });

  for (const [what, customer] of UNSTORABLE) {
    it(`refuses ${what} with INVALID_PAYLOAD naming the field, and the sale still commits`, async () => {
      const outbox = createOutbox({ client, store: postgresStore(pool, { schema }), defaultTenantId: 't-1' });
      await outbox.start();
      const invoice = `inv-${Math.random()}`;
      const tx = await pool.connect();
      try {
        await tx.query('BEGIN');
        await tx.query(`INSERT INTO "${schema}".sales (invoice) VALUES ($1)`, [invoice]);
        const err = await refusal(outbox.enqueue('InvoiceEarned', sale(invoice, customer), { tx }));
        expect(err.code).toBe('INVALID_PAYLOAD');
        expect(err.issues.map((issue) => issue.path)).toEqual(['payload.externalCustomerId']);
        // The caller's transaction is untouched: its COMMIT commits the sale.
        expect(tx.getTransactionStatus()).toBe('T');
        await tx.query('COMMIT');
      } finally {
        tx.release();
      }
      const kept = await pool.query(`SELECT 1 FROM "${schema}".sales WHERE invoice = $1`, [invoice]);
      expect(kept.rowCount).toBe(1);
      const events = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`);
      expect(events.rows[0].n).toBe(0);
      await outbox.close();
    });
  }
});

afterAll(async () => {
  await client.close();
});

describe('every store and the client refuse text no store can keep, alike', () => {
  const dir = useTempDir('outbox-text-', 'all');

  const stores: [string, () => LocalStore][] = [
    ['memoryStore', () => memoryStore()],
    ['fileStore', () => fileStore(join(dir(), uniqueName('store')))],
  ];
  for (const [name, store] of stores) {
    for (const [what, customer] of UNSTORABLE) {
      it(`${name} refuses ${what} before storing anything`, async () => {
        const outbox = createOutbox({ client, store: store(), defaultTenantId: 't-1' });
        await outbox.start();
        const err = await refusal(outbox.enqueue('InvoiceEarned', sale('inv-1', customer)));
        expect(err.code).toBe('INVALID_PAYLOAD');
        expect(err.issues.map((issue) => issue.path)).toEqual(['payload.externalCustomerId']);
        expect(await outbox.stats()).toMatchObject({ pending: 0 });
        await outbox.close();
      });
    }
  }

  it('client.send refuses it too, naming an optional name field', async () => {
    const err = await refusal(
      client.send('CustomerSynced', {
        externalCustomerId: 'c-1',
        phone: '+966500000001',
        firstName: 'Nu\u0000ra',
      }),
    );
    expect(err.code).toBe('INVALID_PAYLOAD');
    expect(err.issues.map((issue) => issue.path)).toEqual(['payload.firstName']);
  });

  it('still accepts well-formed text outside the Basic Multilingual Plane', async () => {
    const outbox = createOutbox({ client, store: memoryStore(), defaultTenantId: 't-1' });
    await outbox.start();
    await outbox.enqueue('CustomerSynced', {
      externalCustomerId: 'c-😀',
      phone: '+966500000001',
      firstName: 'نورة',
    });
    expect(await outbox.stats()).toMatchObject({ pending: 1 });
    await outbox.close({ deadlineMs: 10 });
  });
});
