import { switchFlags } from '../args.js';
import { CLIENT_ENV } from '../client-env.js';
import { checkPostgres } from '../doctor/postgres.js';
import { checkRedis, type DoctorRedis } from '../doctor/redis.js';
import { type CheckLine, formatReport } from '../doctor/report.js';
import { checkService } from '../doctor/service.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { connectRedis, loadDriver, STORE_FLAGS, schemaFlag } from '../ops/connect.js';
import { redactIn, redactUrl } from '../ops/redact.js';
import { defineCommand } from './command.js';

const HELP = `Usage: loyalty-partner doctor (--postgres <url> | --redis <url>) [options]

Checks where the SDK is deployed and says, line by line, what works and what to change.

PostgreSQL: the server's version; whether the connection goes through a pooler, and whether it
is a transaction pooler (PgBouncer in transaction mode, Supabase, Neon, RDS Proxy); prepared
statements; LISTEN (the outbox's wake-ups); the default isolation; the SDK's schema version
against this package's; the database's clock against this machine's.
Redis: the server (Redis or Valkey) and version; cluster mode; the eviction policy (said plainly
when the provider hides it); persistence. In a cluster, of every master it can reach.
With LOYALTY_BASE_URL and LOYALTY_API_KEY set: GET /connection with the key, the service's clock
(its Date header) against this machine's, and that LOYALTY_SIGNING_SECRET is set.

Options:
  --postgres <url>     the database, as the application connects to it (its pooler's URL too)
  --schema <name>      the schema migrate created (default loyalty)
  --redis <url>        the Redis the inbox uses
  --prefix <p>         the Redis key prefix (default loyalty:)
  --json               print JSON for scripts
  -h, --help           show this help

Passwords are never printed. Exit codes: 0 all well; 1 warnings; 2 usage error; 3 the database
or Redis cannot be reached.`;

export const doctorCommand = defineCommand({
  name: 'doctor',
  summary: 'check a deployment: PostgreSQL (poolers, LISTEN, isolation, schema), Redis, the service',
  help: HELP,
  flags: { ...STORE_FLAGS, ...switchFlags('json') },
  async run({ values, io }) {
    const { postgres, redis } = values;
    if ((postgres === undefined) === (redis === undefined))
      throw new UsageError('doctor: pass --postgres <url> or --redis <url> (one of them)');
    if (postgres !== undefined && values.prefix !== undefined)
      throw new UsageError('doctor: --prefix goes with --redis');
    if (redis !== undefined && values.schema !== undefined)
      throw new UsageError('doctor: --schema goes with --postgres');
    const schema = values.schema ?? 'loyalty';
    schemaFlag(schema);
    const url = (postgres ?? redis)!;
    const target = redactUrl(url);
    let lines: CheckLine[];
    try {
      lines =
        postgres !== undefined
          ? await checkPostgres(await loadPgClient(), postgres, schema)
          : await withRedis(redis!, (client) =>
              checkRedis(client, values.prefix ?? 'loyalty:', (address, work) =>
                withRedis(nodeUrl(redis!, address), work),
              ),
            );
    } catch (err) {
      if (err instanceof UsageError) throw err;
      io.stderr.write(`error: cannot check ${target}: ${redactIn((err as Error).message, url)}\n`);
      return EXIT.unavailable;
    }
    if (io.env[CLIENT_ENV.baseUrl] && io.env[CLIENT_ENV.apiKey]) lines.push(...(await checkService(io)));
    const warnings = lines.some((line) => line.status === 'warn');
    if (values.json) io.stdout.write(`${JSON.stringify({ target, checks: lines, warnings }, null, 2)}\n`);
    else io.stdout.write(formatReport(target, lines));
    return warnings ? EXIT.failed : EXIT.ok;
  },
});

async function loadPgClient() {
  const pg = await loadDriver('pg', () => import('pg'), 'doctor --postgres');
  return (pg.default ?? pg).Client as unknown as Parameters<typeof checkPostgres>[0];
}

/** `url` with another node's `host:port`: the same scheme (TLS), user and password. */
function nodeUrl(url: string, address: string): string {
  const node = new URL(url);
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at);
  node.hostname = host.includes(':') ? `[${host}]` : host;
  node.port = address.slice(at + 1);
  return node.href;
}

async function withRedis<T>(url: string, work: (client: DoctorRedis) => Promise<T>): Promise<T> {
  const client = await connectRedis(url, 'doctor --redis');
  try {
    return await work(client as unknown as DoctorRedis);
  } finally {
    client.disconnect();
  }
}
