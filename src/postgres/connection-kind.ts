/**
 * Whether connections reach PostgreSQL directly or through a pooler (PgBouncer, Supavisor, Neon,
 * RDS Proxy), where a statement prepared by name may be missing or already there: the stores name
 * statements only on connections known direct. Told with no statement in a sale's transaction.
 */

/** `pg` connections (Client, PoolClient) known to reach a backend directly (true) or not. */
const pgConnections = new WeakMap<object, boolean>();

/** What the store knows of a `pg` connection: direct, behind a pooler, or not known yet. */
export function knownDirect(client: unknown): boolean | undefined {
  return typeof client === 'object' && client !== null ? pgConnections.get(client) : undefined;
}

/** Records `pg_backend_pid()` against the `pg` client's start-up id (if it keeps one). */
export function learnPgConnection(client: unknown, backendPid: unknown): boolean | undefined {
  const processID = (client as { processID?: unknown } | null)?.processID;
  if (typeof client !== 'object' || client === null || typeof processID !== 'number') return undefined;
  const pid = Number(backendPid);
  if (!Number.isInteger(pid)) return undefined;
  const direct = pid === processID;
  pgConnections.set(client, direct);
  return direct;
}

/** Host names of managed poolers: Supabase's Supavisor, Neon's pooler, RDS Proxy. */
const POOLER_HOSTS = [/pooler\.supabase\.com$/i, /-pooler\./i, /\.proxy-[a-z0-9]+\./i];

/**
 * A postgres.js `sql` goes through a pooler when its host is a known pooler's, or the port it dialled
 * is not the server's (over TCP; a Unix socket is direct): a port a container maps too, the safe side.
 */
export function postgresJsPooled(
  options: { host?: unknown; port?: unknown } | undefined,
  serverPort: unknown,
): boolean {
  const hosts = ([] as unknown[]).concat(options?.host ?? []).map(String);
  const ports = ([] as unknown[]).concat(options?.port ?? []).map(Number);
  if (hosts.some((host) => POOLER_HOSTS.some((pattern) => pattern.test(host)))) return true;
  if (hosts.length > 0 && hosts.every((host) => host.startsWith('/'))) return false;
  const port = Number(serverPort);
  return ports.length > 0 && Number.isInteger(port) && !ports.includes(port);
}

export const POSTGRES_JS_PREPARE_WARNING =
  'the postgres.js sql given to the store goes through a connection pooler and prepares statements: ' +
  'behind a transaction pooler (PgBouncer in transaction mode, Supabase, Neon, RDS Proxy) statements ' +
  'fail or whole transactions are lost. Create it with postgres(url, { prepare: false }), or give the ' +
  'store a direct connection';
