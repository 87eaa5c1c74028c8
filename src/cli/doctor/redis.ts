import { type CheckLine, info, ok, warn } from './report.js';

/** The part of an ioredis client the doctor uses. */
export interface DoctorRedis {
  call(command: string, ...args: string[]): Promise<unknown>;
}

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

/** Opens one node of a cluster (`host:port`), runs `work` on it and closes it. */
export type VisitNode = <T>(address: string, work: (node: DoctorRedis) => Promise<T>) => Promise<T>;

/** Checks a Redis the inbox will use (each master of a cluster through `visit`); it only reads. */
export async function checkRedis(redis: DoctorRedis, prefix: string, visit: VisitNode): Promise<CheckLine[]> {
  const server = await infoOf(redis, 'server');
  const valkey =
    server.get('valkey_version') ??
    (server.get('server_name') === 'valkey' ? server.get('redis_version') : undefined);
  const version = valkey ?? server.get('redis_version') ?? '?';
  const name = valkey ? 'Valkey' : 'Redis';
  const lines = [
    valkey || Number.parseInt(version, 10) >= 6
      ? ok('server', `${name} ${version}`)
      : warn('server', `${name} ${version}`, 'use Redis 6 or later'),
  ];
  if ((await infoOf(redis, 'cluster')).get('cluster_enabled') !== '1')
    return [
      ...lines,
      ok('cluster mode', 'off: a standalone server (or Sentinel)'),
      ...(await storageChecks(redis)),
    ];
  const masters = clusterMasters(String(await redis.call('CLUSTER', 'NODES')));
  lines.push(
    info(
      'cluster mode',
      `on, ${masters.length} masters: give the inbox an ioredis Cluster or a node-redis createCluster client; its keys (prefix ${prefix}) are kept in one hash slot per operation`,
    ),
  );
  // Each master keeps its own settings: each is asked, and the same answers are said once.
  const seen: { address: string; lines: CheckLine[] }[] = [];
  const unseen: string[] = [];
  for (const address of masters) {
    try {
      seen.push({ address, lines: await visit(address, storageChecks) });
    } catch (err) {
      unseen.push(`${address} (${(err as Error).message})`);
    }
  }
  const groups = new Map<string, { line: CheckLine; addresses: string[] }>();
  for (const node of seen)
    for (const line of node.lines) {
      const key = JSON.stringify(line);
      const group = groups.get(key) ?? { line, addresses: [] };
      group.addresses.push(node.address);
      groups.set(key, group);
    }
  for (const { line, addresses } of groups.values())
    lines.push({
      ...line,
      found: `${line.found} (${addresses.length === masters.length ? `all ${masters.length} masters` : addresses.join(', ')})`,
    });
  if (unseen.length > 0)
    lines.push(
      warn(
        'cluster nodes',
        `cannot reach ${unseen.join(', ')} from here: its eviction policy and persistence are not checked`,
        "run doctor where every master is reachable, or check them in the provider's console",
      ),
    );
  return lines;
}

/** The masters `CLUSTER NODES` lists as reachable (`host:port`), in its order. */
function clusterMasters(nodes: string): string[] {
  return nodes
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter(([, , flags]) => {
      const set = new Set(flags?.split(','));
      return set.has('master') && !set.has('fail') && !set.has('noaddr');
    })
    .map(([, address]) => address!.split('@')[0]!);
}

async function storageChecks(redis: DoctorRedis): Promise<CheckLine[]> {
  const memory = await infoOf(redis, 'memory');
  const policy = memory.get('maxmemory_policy') ?? (await configOf(redis, 'maxmemory-policy'));
  const eviction =
    policy === undefined
      ? warn(
          'eviction',
          'the provider hides the eviction policy (INFO and CONFIG answer without it)',
          "check in the provider's console that maxmemory-policy is noeviction",
        )
      : EVICTING.test(policy)
        ? warn(
            'eviction',
            `maxmemory-policy ${policy}: keys may be evicted, and an evicted claim or done marker is an acknowledged delivery lost or handled twice`,
            'set maxmemory-policy noeviction for the Redis that holds the inbox',
          )
        : ok('eviction', `maxmemory-policy ${policy}`);
  const aof = (await infoOf(redis, 'persistence')).get('aof_enabled') === '1';
  const save = await configOf(redis, 'save');
  const persistence = aof
    ? ok('persistence', 'append-only file on')
    : save === undefined
      ? info(
          'persistence',
          'append-only file off; the snapshot schedule is hidden by the provider (check its console)',
        )
      : save.trim() !== ''
        ? ok('persistence', `snapshots (save ${save}); append-only file off`)
        : warn(
            'persistence',
            'none: a restart forgets every delivery, claim and done marker',
            'turn on appendonly (or snapshots) for the Redis that holds the inbox',
          );
  return [eviction, persistence];
}
