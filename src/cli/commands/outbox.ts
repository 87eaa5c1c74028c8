import type { EventState, StoredEvent } from '../../outbox/store.js';
import { switchFlags, valueFlags } from '../args.js';
import { FILE_FLAGS } from '../ops/connect.js';
import { outboxView } from '../ops/store-views.js';
import { OUTBOX_STATES } from '../ops/tenant-pages.js';
import { ACTOR_HELP, defineStoreCommand, selectionHelp } from './store-command.js';

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
${selectionHelp(OUTBOX_STATES, 'event', 'events', 'redeliver or discard')}
  --accept-duplicate-risk  redeliver expired events too (the service may credit one twice)
${ACTOR_HELP}

Every redeliver and discard is written to the store's audit trail (who, when, what): the
schema's audit table, or <dir>/audit.jsonl.
Payloads are never printed.

Exit codes: 0 done; 1 an event was refused (unknown, wrong state) or a confirmation answered no;
2 usage error, or the schema is not migrated; 3 the database cannot be reached.`;

export const outboxCommand = defineStoreCommand<EventState, StoredEvent>({
  name: 'outbox',
  summary: 'see and fix a Postgres outbox: stats, list, redeliver, discard',
  help: HELP,
  flags: { ...valueFlags('postgres', 'schema'), ...FILE_FLAGS, ...switchFlags('accept-duplicate-risk') },
  verbs: ['redeliver', 'discard'],
  noun: 'events',
  states: OUTBOX_STATES,
  actable: OUTBOX_STATES.filter((state) => state !== 'pending'),
  perTenant: OUTBOX_STATES,
  allTenantsOnly: [],
  view: (backends) => outboxView(backends.outbox!),
});
