import { createEnvelope } from 'loyalty-partner-sdk';
import type { SharedStore, StoredEvent } from 'loyalty-partner-sdk/outbox';

// The store's parameter types, named the way an implementer of `SharedStore` would.
type CausalKeys = Parameters<SharedStore<unknown>['append']>[1]['keys'];
type ClaimRequest = Parameters<SharedStore<unknown>['claim']>[0];

import {
  migrate,
  OutboxTransactionError,
  type PostgresOutboxTx,
  PostgresStoreError,
  postgresStore,
} from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * postgresStore on its own, as the outbox's scheduler drives it: what the caller's transaction
 * makes visible, which events a claim may hand out (causal order, leases, stops, in-flight
 * limits), and what a lost connection does.
 */

let seq = 0;
function sale(customer: string, tenantId = 'tenant-1'): { event: StoredEvent; keys: CausalKeys } {
  seq += 1;
  const invoice = `inv-${seq}`;
  const envelope = createEnvelope('InvoiceEarned', {
    externalInvoiceId: invoice,
    externalCustomerId: customer,
    externalBranchId: 'branch-1',
    subtotalAfterDiscountBeforeVat: 10,
    earnType: 'Points',
    stampCardId: null,
    channel: 'Pos',
  });
  const event: StoredEvent = {
    eventId: envelope.eventId,
    tenantId,
    envelope,
    seq: 0,
    enqueuedAt: Date.now(),
    state: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    lastError: null,
  };
  return {
    event,
    keys: { changes: [`Customer:${customer}`, `Invoice:${invoice}`], needs: ['Branch:branch-1'] },
  };
}

const request = (overrides: Partial<ClaimRequest> = {}): ClaimRequest => ({
  limit: 100,
  maxInFlight: 16,
  leaseMs: 30_000,
  skipTenants: [],
  ...overrides,
});
const ids = (events: readonly StoredEvent[]) => events.map((event) => event.eventId);

describeWithPostgres('postgresStore', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  let schema: string;
  let store: SharedStore<PostgresOutboxTx>;
  let other: SharedStore<PostgresOutboxTx>;

  beforeAll(async () => {
    schema = uniqueName('outbox_store');
    await migrate(pool, { schema });
  });
  afterAll(() => pool.end());

  const fresh = async () => {
    await pool.query(`TRUNCATE "${schema}".outbox, "${schema}".outbox_tenant_stops`);
    store = postgresStore(pool, { schema });
    other = postgresStore(pool, { schema });
  };

  describe('with the caller’s pg transaction', () => {
    beforeAll(fresh);

    it('writes nothing visible before COMMIT, and nothing at all after ROLLBACK', async () => {
      const committed = sale('c-1');
      const rolledBack = sale('c-2');
      const tx = await pool.connect();
      await tx.query('BEGIN');
      await store.append(committed.event, { ...committed, tx });
      expect(await other.get(committed.event.eventId)).toBeUndefined();
      expect(await other.claim(request())).toEqual([]);
      await tx.query('COMMIT');
      await tx.query('BEGIN');
      await store.append(rolledBack.event, { ...rolledBack, tx });
      await tx.query('ROLLBACK');
      tx.release();
      expect(ids(await other.claim(request()))).toEqual([committed.event.eventId]);
      expect(await other.get(rolledBack.event.eventId)).toBeUndefined();
    });

    it('refuses a pool, a client outside BEGIN, a committed and a failed transaction, writing nothing', async () => {
      const attempt = async (tx: PostgresOutboxTx) => {
        const { event, keys } = sale('c-3');
        const error = await store.append(event, { keys, tx }).catch((err: unknown) => err);
        expect(await other.get(event.eventId)).toBeUndefined();
        return error instanceof OutboxTransactionError ? error.code : error;
      };
      expect(await attempt(pool)).toBe('NOT_A_TRANSACTION');
      const client = await pool.connect();
      expect(await attempt(client)).toBe('NOT_IN_TRANSACTION');
      await client.query('BEGIN');
      await client.query('COMMIT');
      expect(await attempt(client)).toBe('NOT_IN_TRANSACTION');
      await client.query('BEGIN');
      await client.query('SELECT 1/0').catch(() => undefined);
      expect(await attempt(client)).toBe('TRANSACTION_ABORTED');
      await client.query('ROLLBACK');
      // An adapter with query() only (Prisma, Kysely) is probed with a savepoint.
      const adapter = { query: (text: string, values?: unknown[]) => client.query(text, values) };
      expect(await attempt(adapter)).toBe('NOT_IN_TRANSACTION');
      client.release();
    });

    it('makes a second transaction about the same customer wait for the first, so seq follows commit order', async () => {
      const first = sale('c-order');
      const second = sale('c-order');
      const a = await pool.connect();
      const b = await pool.connect();
      await a.query('BEGIN');
      await b.query('BEGIN');
      await store.append(first.event, { ...first, tx: a });
      const bPid = (await b.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const waiting = store.append(second.event, { ...second, tx: b });
      // b waits on a's lock on Customer:c-order (seen by the server), until a commits.
      for (;;) {
        const { rows } = await pool.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [
          bPid,
        ]);
        if (rows[0]?.wait_event_type === 'Lock') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await a.query('COMMIT');
      await waiting;
      await b.query('COMMIT');
      a.release();
      b.release();
      const claimed = await other.claim(request());
      expect(ids(claimed)).toEqual([first.event.eventId]);
      await other.record([{ kind: 'delivered', eventId: first.event.eventId }]);
      expect(ids(await other.claim(request()))).toEqual([second.event.eventId]);
    });
  });

  describe('claims', () => {
    beforeAll(fresh);

    it('hands out an event only after every earlier conflicting one is answered for the last time', async () => {
      const a1 = sale('a');
      const b1 = sale('b');
      const a2 = sale('a');
      const a3 = sale('a');
      for (const { event, keys } of [a1, b1, a2, a3]) await store.append(event, { keys });
      expect(ids(await store.claim(request()))).toEqual([a1.event.eventId, b1.event.eventId]);
      // a2 waits for a1 in every process, claimed or retried.
      expect(await other.claim(request())).toEqual([]);
      await store.record([
        { kind: 'retry', eventId: a1.event.eventId, patch: { attempts: 1 }, retryAfterMs: 0 },
      ]);
      expect(ids(await other.claim(request()))).toEqual([a1.event.eventId]);
      await other.record([
        {
          kind: 'settle',
          eventId: a1.event.eventId,
          patch: {
            state: 'parked',
            lastError: { code: 'BRANCH_NOT_FOUND', message: 'no branch', status: 400 },
          },
        },
      ]);
      // Parked holds nothing back.
      expect(ids(await other.claim(request()))).toEqual([a2.event.eventId]);
      expect((await store.get(a1.event.eventId))?.lastError?.code).toBe('BRANCH_NOT_FOUND');
      expect(await store.counts()).toEqual({ pending: 3, parked: 1, dead: 0, expired: 0 });
      await other.record([{ kind: 'delivered', eventId: a2.event.eventId }]);
      await store.record([{ kind: 'delivered', eventId: b1.event.eventId }]);
      expect(ids(await store.claim(request()))).toEqual([a3.event.eventId]);
      expect(await store.get(a2.event.eventId)).toBeUndefined();
    });

    it('lets a claim whose lease ran out (its process died) be taken by another process', async () => {
      await fresh();
      const { event, keys } = sale('lease');
      await store.append(event, { keys });
      expect(ids(await store.claim(request({ leaseMs: 50 })))).toEqual([event.eventId]);
      let taken: StoredEvent[] = [];
      while (taken.length === 0) taken = await other.claim(request());
      expect(ids(taken)).toEqual([event.eventId]);
      // The first process's late answer changes nothing: the claim is the other's now.
      await store.record([{ kind: 'settle', eventId: event.eventId, patch: { state: 'dead' } }]);
      expect((await other.get(event.eventId))?.state).toBe('pending');
    });

    it('gives each outbox its own maxInFlight per tenant, less what it says it sends, and none of a stopped tenant', async () => {
      await fresh();
      for (let i = 0; i < 7; i++) {
        const { event, keys } = sale(`m-${i}`);
        await store.append(event, { keys });
      }
      // Another process's claims do not count: each reaches its own cap.
      expect(await store.claim(request({ maxInFlight: 2 }))).toHaveLength(2);
      expect(await other.claim(request({ maxInFlight: 2 }))).toHaveLength(2);
      // What this process already sends does.
      expect(await store.claim(request({ maxInFlight: 2, inFlight: { 'tenant-1': 2 } }))).toEqual([]);
      expect(await store.claim(request({ maxInFlight: 3, inFlight: { 'tenant-1': 2 } }))).toHaveLength(1);
      await store.setTenantStop('tenant-1', { tenantId: 'tenant-1', reason: 'Disabled', since: 1 });
      expect(await other.open()).toEqual({
        stoppedTenants: [{ tenantId: 'tenant-1', reason: 'Disabled', since: 1 }],
      });
      expect(await other.claim(request())).toEqual([]);
      await store.setTenantStop('tenant-1', null);
      expect(await other.claim(request())).toHaveLength(2);
    });

    it('looks further back than its first window when nothing in that window is ready', async () => {
      await fresh();
      // 100 events about one customer (each waits for the one before), then one about another.
      for (let i = 0; i < 100; i++) {
        const { event, keys } = sale('chain');
        await store.append(event, { keys });
      }
      const last = sale('alone');
      await store.append(last.event, { keys: last.keys });
      // The first window (64 rows for a claim of 1) holds only the chain's head, which is taken:
      expect(await store.claim(request({ limit: 1 }))).toHaveLength(1);
      // then nothing in it is ready for another process, and the window doubles until it is.
      expect(ids(await other.claim(request({ limit: 1 })))).toEqual([last.event.eventId]);
    });

    it('deletes delivered rows after retention, one small batch at a time', async () => {
      await fresh();
      // Delivered by a store that never sweeps: a batch that a sweeping store's first claim started
      // could otherwise delete rows before the test has seen all three.
      const delivering = postgresStore(pool, { schema, cleanupEvery: 0 });
      for (let i = 0; i < 3; i++) {
        const { event, keys } = sale(`r-${i}`);
        await delivering.append(event, { keys });
      }
      const claimed = await delivering.claim(request());
      await delivering.record(
        claimed.map((event) => ({ kind: 'delivered' as const, eventId: event.eventId })),
      );
      const rows = async (where = 'true') =>
        (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE ${where}`)).rows[0].n;
      // Each row's delivery time is its own, so a batch started within the first millisecond could
      // find only some of them past retention. Wait until the database says all three are.
      while ((await rows(`delivered_at < now() - interval '1 millisecond'`)) < 3);
      const sweeping = postgresStore(pool, { schema, retentionMs: 1, cleanupEvery: 1, cleanupBatchSize: 2 });
      // Each claim may start one batch in the background; batches never overlap.
      const seen = new Set<number>([await rows()]);
      expect([...seen]).toEqual([3]);
      while (!seen.has(0)) {
        await sweeping.claim(request());
        seen.add(await rows());
      }
      expect([...seen].every((n) => n === 3 || n === 1 || n === 0)).toBe(true);
      expect(await rows()).toBe(0);
    });

    it('fails a claim whose connection is terminated with CONNECTION_LOST, and loses no event', async () => {
      await fresh();
      const { event, keys } = sale('lost');
      await store.append(event, { keys });
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const doomed = postgresStore(client, { schema });
      // Hold the table so the claim is inside the server when its backend is terminated.
      const holder = await pool.connect();
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE "${schema}".outbox IN ACCESS EXCLUSIVE MODE`);
      const claiming = doomed.claim(request()).catch((err: unknown) => err);
      for (;;) {
        const { rows } = await pool.query('SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1', [
          pid,
        ]);
        if (rows[0]?.wait_event_type === 'Lock') break;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      const error = await claiming;
      await holder.query('COMMIT');
      holder.release();
      expect(error).toBeInstanceOf(PostgresStoreError);
      expect((error as PostgresStoreError).code).toBe('CONNECTION_LOST');
      expect(ids(await store.claim(request()))).toEqual([event.eventId]);
      expect((await store.get(event.eventId))?.eventId).toBe(event.eventId);
    });
  });

  describe('with postgres.js', () => {
    const sql = postgres(url, { max: 4, onnotice: () => undefined });
    beforeAll(fresh);
    afterAll(() => sql.end());

    it('writes with the transaction sql, and refuses the top-level sql and a finished transaction', async () => {
      const jsStore = postgresStore(sql, { schema });
      const committed = sale('js-1');
      const rolledBack = sale('js-2');
      let finished: PostgresOutboxTx | undefined;
      await sql.begin(async (tx) => {
        await jsStore.append(committed.event, { ...committed, tx });
        expect(await other.get(committed.event.eventId)).toBeUndefined();
        finished = tx;
      });
      await sql
        .begin(async (tx) => {
          await jsStore.append(rolledBack.event, { ...rolledBack, tx });
          throw new Error('the sale failed');
        })
        .catch(() => undefined);
      expect(ids(await jsStore.claim(request()))).toEqual([committed.event.eventId]);
      expect(await jsStore.get(rolledBack.event.eventId)).toBeUndefined();
      const late = sale('js-3');
      const codeOf = (err: unknown) => (err instanceof OutboxTransactionError ? err.code : err);
      expect(codeOf(await jsStore.append(late.event, { ...late, tx: sql }).catch((err) => err))).toBe(
        'NOT_A_TRANSACTION',
      );
      expect(codeOf(await jsStore.append(late.event, { ...late, tx: finished! }).catch((err) => err))).toBe(
        'NOT_IN_TRANSACTION',
      );
      expect(await jsStore.get(late.event.eventId)).toBeUndefined();
    });

    // postgres.js serialises a parameter typed json or jsonb with JSON.stringify: a JSON text
    // given there would be stored as one JSON string, and its fields read as NULL.
    it('stores the envelope, outcomes and patches as JSON objects, with a transaction sql or as the store', async () => {
      const jsStore = postgresStore(sql, { schema });
      const [inTx, direct, parked] = [sale('js-4'), sale('js-5'), sale('js-6')];
      await sql.begin((tx) => jsStore.append(inTx.event, { ...inTx, tx }));
      await jsStore.append(direct.event, direct);
      await jsStore.append(parked.event, parked);
      const { rows } = await pool.query(
        `SELECT envelope->'payload'->>'externalCustomerId' AS customer FROM "${schema}".outbox WHERE event_id = ANY ($1) ORDER BY seq`,
        [[inTx.event.eventId, direct.event.eventId, parked.event.eventId]],
      );
      expect(rows.map((row) => row.customer)).toEqual(['js-4', 'js-5', 'js-6']);

      await jsStore.claim(request());
      const lastError = { code: 'BRANCH_MAPPING_NOT_FOUND', message: 'no branch', at: Date.now() };
      await jsStore.recordAndClaim!(
        [
          {
            kind: 'retry',
            eventId: inTx.event.eventId,
            patch: { attempts: 1, lastError },
            retryAfterMs: 60_000,
          },
          {
            kind: 'settle',
            eventId: parked.event.eventId,
            patch: { state: 'parked', attempts: 1, lastError },
          },
        ],
        request({ limit: 0 }),
      );
      expect(await jsStore.get(inTx.event.eventId)).toMatchObject({
        state: 'pending',
        attempts: 1,
        lastError,
      });
      expect(await jsStore.get(parked.event.eventId)).toMatchObject({
        state: 'parked',
        attempts: 1,
        lastError,
      });
      await jsStore.update(parked.event.eventId, { state: 'pending' });
      expect((await jsStore.get(parked.event.eventId))?.state).toBe('pending');
      // The outcome written on its own, when no claim is coming to carry it.
      await jsStore.claim(request());
      expect(
        await jsStore.record([
          { kind: 'settle', eventId: parked.event.eventId, patch: { state: 'dead', attempts: 2, lastError } },
        ]),
      ).toEqual([parked.event.eventId]);
      expect(await jsStore.get(parked.event.eventId)).toMatchObject({
        state: 'dead',
        attempts: 2,
        lastError,
      });
    });
  });
});
