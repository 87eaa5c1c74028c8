import { LATEST_SCHEMA_VERSION } from '../../postgres/schema/render.js';
import { type CheckLine, clockLine, info, ok, warn } from './report.js';

/** The part of a connected `pg.Client` the doctor uses. */
interface DoctorClient {
  processID?: number | null;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  connect(): Promise<unknown>;
  end(): Promise<unknown>;
}
type ClientClass = new (config: { connectionString: string }) => DoctorClient;

/** How long the doctor waits for its own notification before it says `LISTEN` does not work. */
const LISTEN_WAIT_MS = 3_000;

/** Checks a PostgreSQL through `url` as the application connects: two connections, no write. */
export async function checkPostgres(Client: ClientClass, url: string, schema: string): Promise<CheckLine[]> {
  const a = new Client({ connectionString: url });
  const b = new Client({ connectionString: url });
  for (const client of [a, b]) client.on('error', () => undefined);
  await a.connect();
  try {
    await b.connect();
    const one = async (client: DoctorClient, text: string, values?: unknown[]) =>
      (await client.query(text, values)).rows[0] ?? {};

    const version = String((await one(a, 'SHOW server_version')).server_version ?? '?');
    const server =
      Number.parseInt(version, 10) >= 13
        ? ok('server', `PostgreSQL ${version}`)
        : warn('server', `PostgreSQL ${version}`, 'use PostgreSQL 13 or later');

    // A pooler answers the start-up itself: the process id it gives is not the backend's.
    // In transaction mode the server connection of `a` is lent to `b` while `a` is idle.
    const pid = async (client: DoctorClient) =>
      Number((await one(client, 'SELECT pg_backend_pid() AS pid')).pid);
    const pidA = await pid(a);
    await b.query('BEGIN');
    const pidB = await pid(b);
    const pidAAgain = await pid(a);
    await b.query('COMMIT');
    const pooled = typeof a.processID === 'number' && a.processID !== pidA;
    const pooler =
      pidAAgain !== pidA || pidB === pidA
        ? [
            warn(
              'pooler',
              'a transaction pooler (the server connection changes between transactions)',
              'fine for the stores and migrate; give postgres.js prepare: false, and give the outbox listen a direct or session-mode connection',
            ),
            info(
              'prepared statements',
              'named statements do not outlive a transaction here: the stores send theirs unnamed',
            ),
          ]
        : pooled
          ? [
              ok('pooler', 'a pooler in session mode (one server connection per client)'),
              ok('prepared statements', 'kept for the session'),
            ]
          : [
              ok('pooler', 'none: a direct connection'),
              ok('prepared statements', 'kept per connection: the stores prepare theirs by name'),
            ];
    const listen = await checkListen(a, b);
    const isolation = String(
      (await one(a, 'SHOW default_transaction_isolation')).default_transaction_isolation,
    );
    const isolationLine = ok(
      'default isolation',
      isolation === 'read committed'
        ? 'read committed'
        : `${isolation}: the SDK's own transactions run at read committed, its statements retry serialization failures`,
    );
    const schemaLine = await checkSchema(a, schema);
    const before = Date.now();
    const serverNow = Number(
      (await one(a, 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now')).now,
    );
    const clock = clockLine(
      'clock',
      "the database's",
      serverNow - (before + Date.now()) / 2,
      "synchronise this machine's clock (NTP): signatures and due times depend on it",
    );
    return [server, ...pooler, listen, isolationLine, schemaLine, clock];
  } finally {
    await a.end().catch(() => undefined);
    await b.end().catch(() => undefined);
  }
}

async function checkListen(a: DoctorClient, b: DoctorClient): Promise<CheckLine> {
  const channel = `loyalty_doctor_${process.pid}`;
  let heard!: () => void;
  const arrived = new Promise<boolean>((resolve) => {
    heard = () => resolve(true);
    setTimeout(() => resolve(false), LISTEN_WAIT_MS).unref();
  });
  a.on('notification', ((message: { channel: string }) => {
    if (message.channel === channel) heard();
  }) as never);
  await a.query(`LISTEN ${channel}`);
  await b.query('SELECT pg_notify($1, $2)', [channel, 'doctor']);
  const works = await arrived;
  await a.query(`UNLISTEN ${channel}`).catch(() => undefined);
  return works
    ? ok('LISTEN', 'notifications arrive: the outbox can be woken through this connection')
    : warn(
        'LISTEN',
        `no notification arrived within ${LISTEN_WAIT_MS} ms`,
        "give the outbox's listen option a direct or session-mode connection (docs/outbox.md); without it the outbox polls",
      );
}

async function checkSchema(a: DoctorClient, schema: string): Promise<CheckLine> {
  let version: number;
  try {
    const rows = (await a.query(`SELECT max(version)::int AS version FROM "${schema}".schema_version`)).rows;
    version = Number(rows[0]?.version ?? 0);
  } catch {
    return warn(
      'schema',
      `schema "${schema}" is not migrated`,
      `run migrate(db, { schema: '${schema}' }) from loyalty-partner-sdk/postgres, or apply postgres/schema.sql`,
    );
  }
  if (version === LATEST_SCHEMA_VERSION)
    return ok('schema', `"${schema}" at version ${version}, this package's`);
  return version < LATEST_SCHEMA_VERSION
    ? warn(
        'schema',
        `"${schema}" at version ${version}, this package needs ${LATEST_SCHEMA_VERSION}`,
        `run migrate(db, { schema: '${schema}' })`,
      )
    : warn(
        'schema',
        `"${schema}" at version ${version}, newer than this package knows (${LATEST_SCHEMA_VERSION})`,
        'upgrade loyalty-partner-sdk',
      );
}
