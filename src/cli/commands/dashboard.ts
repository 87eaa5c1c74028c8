import { integerFlag, repeatableFlags, switchFlags, valueFlags } from '../args.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { actorOf } from '../ops/audit.js';
import { openBackends, STORE_FLAGS } from '../ops/connect.js';
import { startDashboard } from '../ops/dashboard-server.js';
import { StoreUnavailable } from '../ops/ops-stores.js';
import { watchShutdown } from '../shutdown.js';
import { defineCommand } from './command.js';

const DEFAULT_PORT = 8788;

const HELP = `Usage: loyalty-partner dashboard (--postgres <url> | --redis <url>) [options]

A page for a person, in the browser: the outbox per tenant and state (Postgres), the inbox per
state (Postgres or Redis), the age of the oldest pending event, the dead, parked and expired
ones with their last error, and the audit trail of actions. It refreshes on its own.
Read-only unless --allow-actions; then redeliver, replay and discard, each after a confirmation,
each written to the store's audit trail.

Options:
  --postgres <url>       the outbox and the inbox in Postgres (default: DATABASE_URL)
  --schema <name>        the schema migrate created (default loyalty)
  --redis <url>          the inbox in Redis (default: REDIS_URL); with --postgres, the inbox is Redis's
  --prefix <p>           the Redis key prefix (default loyalty:)
  --port <n>             the port (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <address>       the address to listen on (default 127.0.0.1: this machine only)
  --allow-host <name>    a host name the page may be opened by besides localhost and IP
                         addresses (repeatable; e.g. behind your own authenticating proxy)
  --allow-actions        allow redeliver, replay and discard from the page
  --actor <name>         who acts, for the audit trail (default: $USER@hostname)
  -h, --help             show this help

The page shows event data as text only. Passwords in connection strings are never shown.
Ctrl+C stops it.

Exit codes: 0 stopped by Ctrl+C; 2 usage error, or the schema is not migrated; 3 a store cannot
be reached, or the port is taken.`;

export const dashboardCommand = defineCommand({
  name: 'dashboard',
  summary: 'a page for operators: outbox and inbox per tenant and state, dead and parked events',
  help: HELP,
  flags: {
    ...STORE_FLAGS,
    ...valueFlags('port', 'host'),
    ...repeatableFlags('allow-host'),
    ...switchFlags('allow-actions'),
    ...valueFlags('actor'),
  },
  async run({ values, positionals, io }) {
    if (positionals.length > 0)
      throw new UsageError('dashboard takes no arguments (see loyalty-partner dashboard --help)');
    const port = integerFlag('port', values.port, 'port') ?? DEFAULT_PORT;
    if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
    const flags =
      values.postgres === undefined && values.redis === undefined
        ? { ...values, postgres: io.env.DATABASE_URL || undefined, redis: io.env.REDIS_URL || undefined }
        : values;
    const backends = await openBackends(io, flags, {
      outbox: flags.postgres !== undefined,
      inbox: true,
      command: 'dashboard',
    });
    const shutdown = watchShutdown(io);
    try {
      // Fail now, not on the first page load, when a store cannot be read or is not migrated.
      await backends.outbox?.store.counts();
      await backends.inbox?.store.stats();
      await (backends.outbox ?? backends.inbox)?.audit.recent(1);
      const allowActions = Boolean(values['allow-actions']);
      const dashboard = await startDashboard(backends, {
        host: values.host ?? '127.0.0.1',
        port,
        allowActions,
        actor: actorOf(values.actor, io.env),
        allowedHosts: values['allow-host'] ?? [],
      }).catch((err: NodeJS.ErrnoException) => {
        throw new StoreUnavailable(`cannot listen on port ${port}: ${err.code ?? err.message}`);
      });
      io.stdout.write(
        `dashboard on ${dashboard.url} (${allowActions ? 'actions allowed' : 'read-only'}) for ${backends.label}\n`,
      );
      const reason = await shutdown.requested;
      io.stdout.write(`${reason}: stopping\n`);
      await dashboard.close();
      return EXIT.ok;
    } finally {
      shutdown.dispose();
      await backends.close();
    }
  },
});
