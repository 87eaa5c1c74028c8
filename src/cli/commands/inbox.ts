import { DELIVERY_STATES, type DeliveryRecord, type DeliveryState } from '../../webhooks/inbox.js';
import { UsageError } from '../exit-codes.js';
import { STORE_FLAGS } from '../ops/connect.js';
import { inboxView } from '../ops/store-views.js';
import { ACTOR_HELP, defineStoreCommand, selectionHelp } from './store-command.js';

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
${selectionHelp(DELIVERY_STATES, 'delivery', 'deliveries', 'replay or discard')}
${ACTOR_HELP}

Every replay and discard is written to the store's audit trail (Postgres: the schema's audit
table; Redis: the list <prefix>audit). Bodies are never printed.

Exit codes: 0 done; 1 a delivery was refused (unknown, wrong state) or a confirmation answered
no; 2 usage error, or the schema is not migrated; 3 the store cannot be reached.`;

export const inboxCommand = defineStoreCommand<DeliveryState, DeliveryRecord>({
  name: 'inbox',
  summary: 'see and fix a deferred Postgres or Redis inbox: stats, list, replay, discard',
  help: HELP,
  flags: STORE_FLAGS,
  verbs: ['replay', 'discard'],
  noun: 'deliveries',
  states: DELIVERY_STATES,
  actable: DELIVERY_STATES,
  // `statsByTenant` counts these; handled deliveries are counted for all tenants only.
  perTenant: ['pending', 'dead', 'parked'],
  allTenantsOnly: ['handled'],
  check(values) {
    if (values.postgres !== undefined && values.redis !== undefined)
      throw new UsageError('inbox: pass --postgres or --redis, not both');
  },
  view: (backends) => inboxView(backends.inbox!),
});
