import type { EventState, StoredEvent } from '../../outbox/store.js';
import { choiceFlag, integerFlag, subcommandOf } from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { actOnMany } from '../ops/act-many.js';
import { actorOf } from '../ops/audit.js';
import { withBackends } from '../ops/connect.js';
import { ageOf, formatTable } from '../ops/table.js';
import { outboxTenants, TENANTS_SHOWN, tenantFooter } from '../ops/tenant-pages.js';
import { defineCommand } from './command.js';

const STATES: readonly EventState[] = ['pending', 'parked', 'dead', 'expired'];

const HELP = `Usage: loyalty-partner outbox <stats|list|redeliver|discard> [eventId...] [options]

Looks into a transactional outbox in PostgreSQL (postgresStore) and acts on its events, while
the POS servers keep running: a redelivered event is sent by whichever outbox claims it next.
A file outbox (fileStore, --file) is opened only while no process holds its lock.

  stats                    events per tenant and state, and the age of the oldest pending one
  list                     events of one state (--state, default dead), oldest first
  redeliver <id>...        parked, dead or expired events back to their tenant's queue
  discard <id>...          forget parked, dead or expired events for good

Options:
  --postgres <url>         the database (default: DATABASE_URL); its password is never printed
  --schema <name>          the schema migrate created (default loyalty)
  --file <dir>             a file outbox's directory instead (its POS process stopped)
  --key-file <path>        the key of an encrypted file outbox (fileStore encryptionKey):
                           base64 of 32 bytes, or the 32 bytes; readable by its owner only
  --state <state>          ${STATES.join(', ')} (list, --all)
  --tenant <id>            only this tenant (stats) or this tenant's events (list, --all)
  --type <eventType>       only events of this type (list, --all)
  --limit <n>              list at most this many (default 100); stats: the n busiest tenants
                           (default 50), with how many there are in all
  --all                    redeliver or discard every event --state/--tenant/--type select,
                           after a confirmation
  --yes                    do not ask for the confirmation of --all
  --accept-duplicate-risk  redeliver expired events too (the service may credit one twice)
  --actor <name>           who acts, for the audit trail (default: $USER@hostname)
  --json                   print JSON for scripts instead of a table
  -h, --help               show this help

Every redeliver and discard is written to the store's audit trail (who, when, what): the
schema's audit table, or <dir>/audit.jsonl.
Payloads are never printed.

Exit codes: 0 done; 1 an event was refused (unknown, wrong state) or a confirmation answered no;
2 usage error, or the schema is not migrated; 3 the database cannot be reached.`;

const asJson = (event: StoredEvent) => ({
  eventId: event.eventId,
  tenantId: event.tenantId,
  eventType: event.envelope.eventType,
  state: event.state,
  attempts: event.attempts,
  enqueuedAt: new Date(event.enqueuedAt).toISOString(),
  lastError: event.lastError,
});

/** `loyalty-partner outbox`: an operator's view of a Postgres outbox, and its actions. */
export const outboxCommand = defineCommand({
  name: 'outbox',
  summary: 'see and fix a Postgres outbox: stats, list, redeliver, discard',
  help: HELP,
  flags: {
    postgres: { type: 'string' },
    schema: { type: 'string' },
    file: { type: 'string' },
    'key-file': { type: 'string' },
    state: { type: 'string' },
    tenant: { type: 'string' },
    type: { type: 'string' },
    limit: { type: 'string' },
    all: { type: 'boolean' },
    yes: { type: 'boolean' },
    'accept-duplicate-risk': { type: 'boolean' },
    actor: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals, io }) {
    const { sub, ids } = subcommandOf('outbox', positionals, [
      'stats',
      'list',
      'redeliver',
      'discard',
    ] as const);
    const limit = integerFlag('limit', values.limit, sub === 'stats' ? 'tenants' : 'events');
    if (limit === 0) throw new UsageError('--limit must be at least 1');
    const json = Boolean(values.json);
    return withBackends(io, values, { outbox: true, inbox: false, command: 'outbox' }, async (backends) => {
      const store = backends.outbox!.store;
      const select = async (state: EventState, max: number) =>
        (await store.list(state, { tenantId: values.tenant, limit: values.type ? 100_000 : max }))
          .filter((event) => values.type === undefined || event.envelope.eventType === values.type)
          .slice(0, max);
      if (sub === 'stats') {
        const totals = await store.counts();
        const page = await outboxTenants(backends.outbox!, {
          limit: limit ?? TENANTS_SHOWN,
          tenantId: values.tenant,
        });
        const tenants = page?.tenants ?? [];
        if (json)
          io.stdout.write(
            `${JSON.stringify({ ...totals, tenants, totalTenants: page?.totalTenants ?? null }, null, 2)}\n`,
          );
        else {
          const rows = tenants.map((t) => [
            t.tenantId,
            ...STATES.map((state) => String(t.states[state] ?? 0)),
            ageOf(t.oldestPendingAt),
          ]);
          rows.push(['(all)', ...STATES.map((state) => String(totals[state])), '']);
          io.stdout.write(
            `${formatTable(['TENANT', ...STATES.map((s) => s.toUpperCase()), 'OLDEST PENDING'], rows)}\n`,
          );
          if (page) io.stdout.write(`${tenantFooter(page, tenants.length)}\n`);
        }
        return EXIT.ok;
      }
      if (sub === 'list') {
        const events = await select(choiceFlag('state', values.state, STATES) ?? 'dead', limit ?? 100);
        if (json) io.stdout.write(`${JSON.stringify(events.map(asJson), null, 2)}\n`);
        else
          io.stdout.write(
            `${formatTable(
              ['EVENT ID', 'TENANT', 'TYPE', 'STATE', 'ATTEMPTS', 'AGE', 'LAST ERROR'],
              events.map((e) => [
                e.eventId,
                e.tenantId,
                e.envelope.eventType,
                e.state,
                String(e.attempts),
                ageOf(e.enqueuedAt),
                e.lastError ? `${e.lastError.code}: ${e.lastError.message}` : '',
              ]),
              80,
            )}\n`,
          );
        return EXIT.ok;
      }
      const state = choiceFlag('state', values.state, STATES);
      if (values.all && state === undefined)
        throw new UsageError(
          `outbox ${sub} --all needs --state (${STATES.filter((s) => s !== 'pending').join(', ')})`,
        );
      return await actOnMany(io, backends, {
        action: sub === 'redeliver' ? 'outbox.redeliver' : 'outbox.discard',
        ids,
        all: Boolean(values.all),
        select: async () => (await select(state!, 100_000)).map((event) => event.eventId),
        description: [
          `${state} events`,
          values.tenant && `of tenant ${values.tenant}`,
          values.type && `of type ${values.type}`,
        ]
          .filter(Boolean)
          .join(' '),
        yes: Boolean(values.yes),
        json,
        context: {
          actor: actorOf(values.actor, io.env),
          via: 'cli',
          acceptDuplicateRisk: values['accept-duplicate-risk'],
        },
      });
    });
  },
});
