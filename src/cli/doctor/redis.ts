import { type CheckLine, info, ok, warn } from './report.js';

/** The part of an ioredis client the doctor uses. */
export interface DoctorRedis {
  call(command: string, ...args: string[]): Promise<unknown>;
}

/** `INFO <section>` as fields. */
async function infoOf(redis: DoctorRedis, section: string): Promise<Map<string, string>> {
  const text = String(await redis.call('INFO', section));
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1).trim());
  }
  return fields;
}

/** `CONFIG GET name`, or undefined where the provider hides CONFIG. */
async function configOf(redis: DoctorRedis, name: string): Promise<string | undefined> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', name)) as unknown[];
    return reply.length >= 2 ? String(reply[1]) : undefined;
  } catch {
    return undefined;
  }
}

const EVICTING = /^(allkeys|volatile)-/;

/**
 * Checks a Redis the inbox will use: the server (Redis or Valkey) and version, cluster mode,
 * the eviction policy (an evicted claim or done marker is an acknowledged delivery lost or
 * handled twice) and persistence. Reads only.
 */
export async function checkRedis(redis: DoctorRedis, prefix: string): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  const server = await infoOf(redis, 'server');
  const valkey =
    server.get('valkey_version') ??
    (server.get('server_name') === 'valkey' ? server.get('redis_version') : undefined);
  const version = valkey ?? server.get('redis_version') ?? '?';
  const major = Number.parseInt(version, 10);
  const name = valkey ? 'Valkey' : 'Redis';
  lines.push(
    valkey || major >= 6
      ? ok('server', `${name} ${version}`)
      : warn('server', `${name} ${version}`, 'use Redis 6 or later'),
  );

  const cluster = (await infoOf(redis, 'cluster')).get('cluster_enabled') === '1';
  lines.push(
    cluster
      ? info(
          'cluster mode',
          `on: give the inbox an ioredis Cluster or a node-redis createCluster client; its keys (prefix ${prefix}) are kept in one hash slot per operation`,
        )
      : ok('cluster mode', 'off: a standalone server (or Sentinel)'),
  );

  const memory = await infoOf(redis, 'memory');
  const policy = memory.get('maxmemory_policy') ?? (await configOf(redis, 'maxmemory-policy'));
  if (policy === undefined) {
    lines.push(
      warn(
        'eviction',
        'the provider hides the eviction policy (INFO and CONFIG answer without it)',
        "check in the provider's console that maxmemory-policy is noeviction",
      ),
    );
  } else if (EVICTING.test(policy)) {
    lines.push(
      warn(
        'eviction',
        `maxmemory-policy ${policy}: keys may be evicted, and an evicted claim or done marker is an acknowledged delivery lost or handled twice`,
        'set maxmemory-policy noeviction for the Redis that holds the inbox',
      ),
    );
  } else {
    lines.push(ok('eviction', `maxmemory-policy ${policy}`));
  }

  const persistence = await infoOf(redis, 'persistence');
  const aof = persistence.get('aof_enabled') === '1';
  const save = await configOf(redis, 'save');
  if (aof) lines.push(ok('persistence', 'append-only file on'));
  else if (save === undefined)
    lines.push(
      info(
        'persistence',
        'append-only file off; the snapshot schedule is hidden by the provider (check its console)',
      ),
    );
  else if (save.trim() !== '')
    lines.push(ok('persistence', `snapshots (save ${save}); append-only file off`));
  else
    lines.push(
      warn(
        'persistence',
        'none: a restart forgets every delivery, claim and done marker',
        'turn on appendonly (or snapshots) for the Redis that holds the inbox',
      ),
    );
  return lines;
}
