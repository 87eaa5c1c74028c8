import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { ok, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A claim that fails leaves this store's claims in doubt; the next claim first frees every claim
 * the store no longer sends. When that freeing fails too (a serialization failure on a
 * SERIALIZABLE database, three times in a row), the outcome the failed call carried is lost with
 * it, and its event must be freed by the claim after, not left to its 60-second lease.
 */
describeWithPostgres('the Postgres outbox with its claims in doubt', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => pool.end());

  it('frees an answered event whose outcome rode on a call that failed before its write', async () => {
    const schema = uniqueName('outbox_in_doubt');
    await migrate(pool, { schema });
    // The service answers the first sale at once and the second 400 ms later, so each answer's
    // outcome rides on a claim of its own.
    const server = await startScriptedServer((request, res) => {
      const late = request.body.toString().includes('inv-late');
      setTimeout(() => ok(res), late ? 400 : 0);
    });
    // Serialization failures, eight in a row (every attempt the store makes: database.ts runs a
    // statement that meets one up to 8 times): first for the claim carrying the first answer's
    // outcome, then for the freeing of the claims in doubt.
    const faults = { claimWithOutcome: 8, freeing: 8 };
    const serializationFailure = () =>
      Object.assign(new Error('could not serialize access due to concurrent update'), { code: '40001' });
    class FaultyPool extends pg.Pool {
      override query(...args: any[]): any {
        const [text, values]: [string, unknown[] | undefined] =
          typeof args[0] === 'string' ? [args[0], args[1]] : [args[0].text, args[0].values];
        const outcomes = (values?.[9] ?? []) as unknown[];
        if (text.includes('.outbox_record_claim(') && outcomes.length > 0 && faults.claimWithOutcome > 0) {
          faults.claimWithOutcome -= 1;
          return Promise.reject(serializationFailure());
        }
        if (text.includes('SET claimed_by = NULL') && faults.claimWithOutcome === 0 && faults.freeing > 0) {
          faults.freeing -= 1;
          return Promise.reject(serializationFailure());
        }
        return (super.query as any)(...args);
      }
    }
    const faulty = new FaultyPool({ connectionString: url, max: 2 });
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(faulty, { schema }),
      pollIntervalMs: 1_500,
      leaseMs: 60_000,
    });
    await outbox.start();
    // Both sales in one transaction: one claim takes both (two customers: neither waits).
    const tx = await pool.connect();
    await tx.query('BEGIN');
    await outbox.enqueue('InvoiceEarned', { ...invoice('inv-early'), externalCustomerId: 'cust-1' }, { tx });
    await outbox.enqueue('InvoiceEarned', { ...invoice('inv-late'), externalCustomerId: 'cust-2' }, { tx });
    await tx.query('COMMIT');
    tx.release();

    const delivered = async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state = 'delivered'`))
        .rows[0].n as number;
    const deadline = Date.now() + 15_000;
    while ((await delivered()) < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));

    expect(faults).toEqual({ claimWithOutcome: 0, freeing: 0 });
    expect(await delivered()).toBe(2);
    // Each sale went out again once its claim was freed: the service dedups by eventId.
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    await outbox.close();
    await server.close();
    await faulty.end();
  }, 30_000);
});
