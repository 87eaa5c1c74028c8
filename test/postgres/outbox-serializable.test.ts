import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSerializableDatabase } from '../support/serializable-database.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A database whose default isolation is SERIALIZABLE (some teams set it for everything): the
 * drainers' claims and outcomes then fail now and then with a serialization failure, rolled
 * back in full. They run again at once, so no event waits for a lease to run out (60 s here)
 * before its outcome is written or it is claimed again.
 */

describeWithPostgres('the Postgres outbox on a SERIALIZABLE database', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const database = uniqueName('serializable');
  let pool: pg.Pool;
  let reader: pg.Pool;
  // The drainers, closed by the test or, when it fails half-way, after it.
  let closeAll = async () => {};
  let emulator: Emulator;
  let baseUrl: string;
  let merchant: MerchantCredentials;

  beforeAll(async () => {
    const strictUrl = await createSerializableDatabase(admin, url, database);
    pool = new pg.Pool({ connectionString: strictUrl, max: 12 });
    // DROP DATABASE ... WITH (FORCE) ends whatever is still connected.
    pool.on('error', () => undefined);
    // The test's own reads, at READ COMMITTED: a SERIALIZABLE read may fail with 40001 too.
    reader = new pg.Pool({
      connectionString: strictUrl,
      max: 1,
      options: '-c default_transaction_isolation=read\\ committed',
    });
    reader.on('error', () => undefined);
    emulator = createEmulator();
    ({ url: baseUrl } = await emulator.listen());
    merchant = emulator.createMerchant({ autoConfirmBranches: true });
  });
  afterAll(async () => {
    await closeAll();
    await pool.end();
    await reader.end();
    await emulator.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('drains every committed sale, each credited once, without waiting for a lease', async () => {
    const schema = 'loyalty';
    await migrate(pool, { schema });
    expect((await pool.query('SHOW default_transaction_isolation')).rows[0]).toEqual({
      default_transaction_isolation: 'serializable',
    });
    expect((await reader.query('SHOW default_transaction_isolation')).rows[0]).toEqual({
      default_transaction_isolation: 'read committed',
    });
    const clientOf = () =>
      new LoyaltyClient({ baseUrl, apiKey: merchant.apiKey, signingSecret: merchant.signingSecret });
    const setup = clientOf();
    await setup.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
    for (let c = 0; c < 20; c++) {
      await setup.send('CustomerSynced', { externalCustomerId: `cust-${c}`, phone: `+9665000000${10 + c}` });
    }
    await setup.close();
    const clients = [0, 1, 2].map(clientOf);
    const outboxes = clients.map((client) =>
      createOutbox({
        client,
        store: postgresStore(pool, { schema }),
        defaultTenantId: merchant.tenantId,
        pollIntervalMs: 20,
        leaseMs: 60_000,
      }),
    );
    for (const outbox of outboxes) await outbox.start();
    closeAll = async () => {
      for (const outbox of outboxes) await outbox.close();
      for (const client of clients) await client.close();
    };

    // Sales from four lanes, each retried as a SERIALIZABLE application does on 40001.
    const committed = new Set<string>();
    const sale = async (i: number) => {
      for (;;) {
        const tx = await pool.connect();
        try {
          await tx.query('BEGIN');
          const { eventId } = await outboxes[i % 3]!.enqueue(
            'InvoiceEarned',
            {
              externalInvoiceId: `inv-${i}`,
              externalCustomerId: `cust-${i % 20}`,
              externalBranchId: 'branch-1',
              subtotalAfterDiscountBeforeVat: 10,
              earnType: 'Points',
              channel: 'Pos',
            },
            { tx },
          );
          await tx.query('COMMIT');
          committed.add(eventId);
          return;
        } catch (err) {
          await tx.query('ROLLBACK').catch(() => undefined);
          // From COMMIT, the driver's error; from the enqueue, a PostgresStoreError whose cause it is.
          const { code, cause } = err as { code?: string; cause?: { code?: string } };
          if (code !== '40001' && cause?.code !== '40001') throw err;
        } finally {
          tx.release();
        }
      }
    };
    const SALES = 400;
    await Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = lane; i < SALES; i += 4) await sale(i);
      }),
    );

    // A stalled outcome would wait for its 60 s lease: 30 s is far more than a drain needs.
    const pending = async () =>
      (await reader.query(`SELECT count(*)::int AS n FROM ${schema}.outbox WHERE state <> 'delivered'`))
        .rows[0].n;
    const deadline = Date.now() + 30_000;
    while ((await pending()) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await closeAll();

    expect(await pending()).toBe(0);
    const credits = new Map<string, number>();
    for (const request of emulator.events({ tenantId: merchant.tenantId, eventType: 'InvoiceEarned' })) {
      if (request.outcome === 'processed')
        credits.set(request.eventId!, (credits.get(request.eventId!) ?? 0) + 1);
    }
    expect(committed.size).toBe(SALES);
    expect([...committed].filter((eventId) => credits.get(eventId) !== 1)).toEqual([]);
  }, 120_000);
});
