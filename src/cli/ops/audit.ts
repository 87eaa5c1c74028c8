import { hostname, userInfo } from 'node:os';
import { AUDIT_LENGTH, inboxKeys } from '../../redis/inbox-scripts.js';

/** One line of a store's audit trail: who did what to which event, when. */
export interface AuditEntry {
  /** Unix milliseconds. */
  readonly at: number;
  readonly actor: string;
  /** `outbox.redeliver`, `outbox.discard`, `inbox.replay`, `inbox.discard`. */
  readonly action: string;
  /** The event id acted on. */
  readonly target: string;
  readonly detail: Readonly<Record<string, unknown>>;
}

/** Where actions are recorded: the store's own database, so every operator sees the same trail. */
export interface AuditTrail {
  record(entry: Omit<AuditEntry, 'at'>): Promise<void>;
  /** The newest entries first. */
  recent(limit: number): Promise<AuditEntry[]>;
}

/** What the audit trail and the outbox pages query through: a `pg` pool or one of its clients. */
export interface PgQuery {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

/** The `audit` table of the schema (schema step 4). */
export function postgresAudit(pool: PgQuery, quotedSchema: string): AuditTrail {
  return {
    async record(entry) {
      await pool.query(
        `INSERT INTO ${quotedSchema}.audit (actor, action, target, detail) VALUES ($1, $2, $3, $4)`,
        [entry.actor, entry.action, entry.target, JSON.stringify(entry.detail)],
      );
    },
    async recent(limit) {
      const { rows } = await pool.query<
        Omit<AuditEntry, 'at' | 'detail'> & { at: Date; detail: AuditEntry['detail'] | null }
      >(`SELECT at, actor, action, target, detail FROM ${quotedSchema}.audit ORDER BY at DESC LIMIT $1`, [
        limit,
      ]);
      return rows.map((row) => ({ ...row, at: row.at.getTime(), detail: row.detail ?? {} }));
    },
  };
}

interface RedisCall {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** The inbox's capped audit list, newest first, in its hash slot (`replay` and `discard` write it too). */
export function redisAudit(redis: RedisCall, prefix: string): AuditTrail {
  const key = inboxKeys(prefix).audit;
  return {
    async record(entry) {
      await redis.call('LPUSH', key, JSON.stringify({ at: Date.now(), ...entry }));
      await redis.call('LTRIM', key, 0, AUDIT_LENGTH - 1);
    },
    async recent(limit) {
      const items = (await redis.call('LRANGE', key, 0, limit - 1)) as string[];
      return items.map((item) => JSON.parse(item) as AuditEntry);
    },
  };
}

/** `--actor`, else `user@host` of the operator running the command. */
export function actorOf(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string {
  if (flag?.trim()) return flag.trim();
  let user = env.USER ?? env.USERNAME;
  if (!user) {
    try {
      user = userInfo().username;
    } catch {
      user = 'unknown';
    }
  }
  return `${user}@${hostname()}`;
}
