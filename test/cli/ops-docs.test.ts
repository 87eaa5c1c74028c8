import { readFileSync } from 'node:fs';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';
import { deadSales } from './ops-fixtures.js';
import { cli } from './run.js';

/** The shell block of docs/operating-in-production.md, "Command line and dashboard", as commands. */
function documentedCommands(): string[][] {
  const doc = readFileSync('docs/operating-in-production.md', 'utf8');
  const section = doc.slice(doc.indexOf('## Command line and dashboard'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('npx loyalty-partner '))
    .map((line) =>
      line
        .replace(/\s+#.*$/, '')
        .split(/\s+/)
        .slice(2),
    );
}

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The guide's commands, run as written (its schema swapped for this suite's), must do what it says. */
describeWithPostgres('the commands of "Command line and dashboard" in the production guide', (url) => {
  const schema = uniqueName('ops_docs');
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const emulator = createEmulator();
  let sales: Awaited<ReturnType<typeof deadSales>>;
  let deadDelivery: string;
  let handled = 0;
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: postgresInbox(pool, { schema }),
    deferred: true,
    retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 5 },
    handlers: {
      LoyaltyRuleChanged() {
        if (handled++ === 0) throw new Error('first run fails');
      },
    },
  });
  let http: Awaited<ReturnType<typeof serveOverHttp>>;

  beforeAll(async () => {
    await migrate(pool, { schema });
    const { url: service } = await emulator.listen();
    sales = await deadSales(emulator, service, pool, schema, 3, 'cafe-olaya');
    await receiver.start();
    http = await serveOverHttp(receiver);
    const event = outboundEvent('LoyaltyRuleChanged');
    deadDelivery = event.eventId;
    await http.post(signedDelivery(event));
    await until(async () => (await receiver.list({ state: 'dead' })).length === 1);
  });
  afterAll(async () => {
    await http?.close();
    await receiver.close();
    await sales?.close();
    await emulator.close();
    await pool.end();
  });

  it('lists, redelivers, discards and replays as the guide says, each exiting 0', async () => {
    const commands = documentedCommands();
    expect(commands.map((argv) => argv.slice(0, 2).join(' '))).toEqual([
      'outbox stats',
      'outbox stats',
      'outbox list',
      'outbox list',
      'outbox redeliver',
      'outbox discard',
      'outbox redeliver',
      'inbox stats',
      'inbox list',
      'inbox replay',
      'dashboard --allow-actions',
    ]);
    const outboxIds = [...sales.eventIds];
    const outputs: string[] = [];
    for (const argv of commands.filter(([name]) => name !== 'dashboard')) {
      const args = argv.map((arg) =>
        arg === '<eventId>' ? (argv[0] === 'inbox' ? deadDelivery : outboxIds.shift()!) : arg,
      );
      const run = await cli([...args, '--schema', schema], { env: { DATABASE_URL: url }, stdin: 'y\n' });
      expect({ args, code: run.code, stderr: run.stderr }).toMatchObject({ args, code: 0 });
      outputs.push(run.stdout);
    }
    expect(outputs[2]).toContain(sales.eventIds[0]);
    expect(JSON.parse(outputs[1]!)).toMatchObject({ dead: 3 });
    expect(outputs[8]).toContain('Error: first run fails');
    await until(async () => handled === 2);
    const stats = JSON.parse(
      (await cli(['outbox', 'stats', '--json', '--schema', schema], { env: { DATABASE_URL: url } })).stdout,
    );
    expect(stats).toMatchObject({ pending: 1, dead: 0 });
    const { rows } = await pool.query(
      `SELECT action, count(*)::int AS n FROM "${schema}".audit GROUP BY action ORDER BY action`,
    );
    expect(rows).toEqual([
      { action: 'inbox.replay', n: 1 },
      { action: 'outbox.discard', n: 2 },
      { action: 'outbox.redeliver', n: 1 },
    ]);
  });
});
