import type { ServerResponse } from 'node:http';
import { createOutbox, type SharedStore } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresOutboxTx, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { ok, type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A claim is the drain's most expensive statement, so the outbox claims only when it has room:
 * answers that land while a claim is under way are weighed once that claim's events count
 * against the tenant's cap. The service here answers in bursts (it holds requests until a whole
 * cap's worth is waiting, then answers them all at once), the pattern that used to make the
 * outbox claim again for a tenant its last claim had just filled.
 */

const EVENTS = 48;
const CAP = 8;

describeWithPostgres('claims of a Postgres outbox', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let server: ScriptedServer;
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    server = await startScriptedServer((_request, res) => {
      held.push(res);
      if (held.length >= CAP) for (const waiting of held.splice(0)) ok(waiting);
    });
  });
  afterAll(async () => {
    await server.close();
    await pool.end();
  });

  it('never claims for a tenant that already sends its maxInFlight, and sends every event once', async () => {
    const schema = uniqueName('outbox_claims');
    await migrate(pool, { schema });
    const store = postgresStore(pool, { schema });
    const claims: Parameters<SharedStore<PostgresOutboxTx>['claim']>[0][] = [];
    const counted: SharedStore<PostgresOutboxTx> = {
      ...store,
      claim: (request) => {
        claims.push(request);
        return store.claim(request);
      },
    };
    // No poll during the drain: a poll looks for other tenants' work whatever this one sends.
    const outbox = createOutbox({
      client: clientFor(server),
      store: counted,
      maxInFlight: CAP,
      pollIntervalMs: 60_000,
    });
    await outbox.start();
    // Customers of their own: causal order holds nothing back, only the cap does.
    for (let i = 0; i < EVENTS; i++) {
      await outbox.enqueue('InvoiceEarned', {
        ...invoice(`inv-claims-${i}`),
        externalCustomerId: `cust-${i}`,
      });
    }
    await outbox.flush();

    const sent = server.requests.map(
      (request) => JSON.parse(request.body.toString()).payload.externalInvoiceId,
    );
    expect(sent.filter((id: string) => id.startsWith('inv-claims-')).sort()).toEqual(
      Array.from({ length: EVENTS }, (_, i) => `inv-claims-${i}`).sort(),
    );
    const atCap = claims.filter((request) =>
      Object.values(request.inFlight ?? {}).some((sending) => sending >= CAP),
    );
    expect(atCap).toEqual([]);
    await outbox.close();
  });
});
