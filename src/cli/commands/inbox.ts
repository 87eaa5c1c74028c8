import { DELIVERY_STATES, type DeliveryRecord, type DeliveryState } from '../../webhooks/inbox.js';
import { choiceFlag, integerFlag, subcommandOf } from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { actOnMany } from '../ops/act-many.js';
import { actorOf } from '../ops/audit.js';
import { withBackends } from '../ops/connect.js';
import { ageOf, formatTable } from '../ops/table.js';
import { inboxTenants, TENANTS_SHOWN, tenantFooter } from '../ops/tenant-pages.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner inbox <stats|list|replay|discard> [eventId...] [options]

Looks into a deferred receiver's inbox (postgresInbox or redisInbox) and acts on its deliveries,
while the receivers keep running: a replayed delivery is handled by whichever one claims it next.

  stats                    deliveries per tenant and state (handled ones: all tenants only)
  list                     deliveries of one state (--state, default dead), oldest first
  replay <eventId>...      dead, parked or handled deliveries back to pending: handled again
  discard <eventId>...     pending, dead or parked deliveries marked handled without running

Options:
  --postgres <url>         a Postgres inbox (default: DATABASE_URL); passwords are never printed
  --schema <name>          the schema migrate created (default loyalty)
  --redis <url>            a Redis inbox (default: REDIS_URL when DATABASE_URL is unset)
  --prefix <p>             the Redis key prefix (default loyalty:)
  --state <state>          ${DELIVERY_STATES.join(', ')} (list, --all)
  --tenant <id>            only this tenant (stats) or this tenant's deliveries (list, --all)
  --type <eventType>       only deliveries of this type (list, --all)
  --limit <n>              list at most this many (default 100); stats: the n busiest tenants
                           (default 50), with how many there are in all
  --all                    replay or discard every delivery --state/--tenant/--type select,
                           after a confirmation
  --yes                    do not ask for the confirmation of --all
  --actor <name>           who acts, for the audit trail (default: $USER@hostname)
  --json                   print JSON for scripts instead of a table
  -h, --help               show this help

Every replay and discard is written to the store's audit trail (Postgres: the schema's audit
table; Redis: the list <prefix>audit). Bodies are never printed.

Exit codes: 0 done; 1 a delivery was refused (unknown, wrong state) or a confirmation answered
no; 2 usage error, or the schema is not migrated; 3 the store cannot be reached.`;

/** The states `statsByTenant` counts; handled deliveries are counted for all tenants only. */
const PER_TENANT = ['pending', 'dead', 'parked'] as const;

/** `loyalty-partner inbox`: an operator's view of a deferred inbox, and its actions. */
export const inboxCommand = defineCommand({
  name: 'inbox',
  summary: 'see and fix a deferred Postgres or Redis inbox: stats, list, replay, discard',
  help: HELP,
  flags: {
    postgres: { type: 'string' },
    schema: { type: 'string' },
    redis: { type: 'string' },
    prefix: { type: 'string' },
    state: { type: 'string' },
    tenant: { type: 'string' },
    type: { type: 'string' },
    limit: { type: 'string' },
    all: { type: 'boolean' },
    yes: { type: 'boolean' },
    actor: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals, io }) {
    const { sub, ids } = subcommandOf('inbox', positionals, ['stats', 'list', 'replay', 'discard'] as const);
    if (values.postgres !== undefined && values.redis !== undefined)
      throw new UsageError('inbox: pass --postgres or --redis, not both');
    const limit = integerFlag('limit', values.limit, sub === 'stats' ? 'tenants' : 'deliveries');
    if (limit === 0) throw new UsageError('--limit must be at least 1');
    const json = Boolean(values.json);
    return withBackends(io, values, { outbox: false, inbox: true, command: 'inbox' }, async (backends) => {
      const store = backends.inbox!.store;
      const select = async (state: DeliveryState, max: number): Promise<DeliveryRecord[]> =>
        (await store.list({ state, tenantId: values.tenant, limit: values.type ? 100_000 : max }))
          .filter((record) => values.type === undefined || record.eventType === values.type)
          .slice(0, max);
      if (sub === 'stats') {
        const totals = await store.stats();
        const page = await inboxTenants(store, { limit: limit ?? TENANTS_SHOWN, tenantId: values.tenant });
        const tenants = page?.tenants ?? [];
        if (json)
          io.stdout.write(
            `${JSON.stringify({ ...totals, tenants, totalTenants: page?.totalTenants ?? null }, null, 2)}\n`,
          );
        else {
          const rows = tenants.map((t) => [
            t.tenantId,
            ...PER_TENANT.map((state) => String(t.states[state] ?? 0)),
            '',
            ageOf(t.oldestPendingAt),
          ]);
          rows.push([
            '(all)',
            ...PER_TENANT.map((state) => String(totals[state])),
            String(totals.handled),
            '',
          ]);
          io.stdout.write(
            `${formatTable(['TENANT', ...PER_TENANT.map((s) => s.toUpperCase()), 'HANDLED', 'OLDEST PENDING'], rows)}\n`,
          );
          if (page) io.stdout.write(`${tenantFooter(page, tenants.length)}\n`);
        }
        return EXIT.ok;
      }
      if (sub === 'list') {
        const records = await select(
          choiceFlag('state', values.state, DELIVERY_STATES) ?? 'dead',
          limit ?? 100,
        );
        if (json) io.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
        else
          io.stdout.write(
            `${formatTable(
              ['EVENT ID', 'TENANT', 'TYPE', 'STATE', 'ATTEMPTS', 'AGE', 'LAST ERROR'],
              records.map((r) => [
                r.eventId,
                r.tenantId,
                r.eventType,
                r.state,
                String(r.attempts),
                ageOf(r.receivedAt.getTime()),
                r.lastError ?? '',
              ]),
              80,
            )}\n`,
          );
        return EXIT.ok;
      }
      const state = choiceFlag('state', values.state, DELIVERY_STATES);
      if (values.all && state === undefined)
        throw new UsageError(`inbox ${sub} --all needs --state (${DELIVERY_STATES.join(', ')})`);
      return await actOnMany(io, backends, {
        action: sub === 'replay' ? 'inbox.replay' : 'inbox.discard',
        ids,
        all: Boolean(values.all),
        select: async () => (await select(state!, 100_000)).map((record) => record.eventId),
        description: [
          `${state} deliveries`,
          values.tenant && `of tenant ${values.tenant}`,
          values.type && `of type ${values.type}`,
        ]
          .filter(Boolean)
          .join(' '),
        yes: Boolean(values.yes),
        json,
        context: { actor: actorOf(values.actor, io.env), via: 'cli' },
      });
    });
  },
});
