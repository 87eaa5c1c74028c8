import type { TestProject } from 'vitest/node';
import {
  findPostgresBin,
  findRedisServer,
  REQUIRE_SERVERS_VARIABLE,
  type RealServer,
  SERVER_PACKAGES,
  serversRequired,
  startPostgres,
  startRedis,
} from './real-servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A real PostgreSQL for this test run, or `null` when its binaries are not installed. */
    postgresUrl: string | null;
    /** A real Redis for this test run, or `null` when `redis-server` is not installed. */
    redisUrl: string | null;
  }
}

/**
 * One PostgreSQL and one Redis for the whole run, started before the first test file and stopped
 * after the last; each suite isolates itself (its own schema or key prefix). Without the binaries,
 * the store suites do not run and this says so in one loud line, unless `.ci/run` demands them.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const missing: string[] = [];
  if (!findPostgresBin()) missing.push('PostgreSQL (initdb, pg_ctl)');
  if (!findRedisServer()) missing.push('Redis (redis-server)');
  if (missing.length > 0) {
    const what = `${missing.join(' and ')} not installed`;
    if (serversRequired()) throw new Error(`${what}, and ${REQUIRE_SERVERS_VARIABLE}=1: ${SERVER_PACKAGES}`);
    console.warn(
      `\n!!! STORE TESTS DID NOT RUN: ${what}. Install them (${SERVER_PACKAGES}) to test the Postgres and Redis stores.\n`,
    );
  }
  const started: RealServer[] = [];
  const postgres = missing.some((m) => m.startsWith('PostgreSQL')) ? null : await startPostgres();
  if (postgres) started.push(postgres);
  const redis = missing.some((m) => m.startsWith('Redis')) ? null : await startRedis();
  if (redis) started.push(redis);
  project.provide('postgresUrl', postgres?.url ?? null);
  project.provide('redisUrl', redis?.url ?? null);
  return async () => {
    await Promise.all(started.map((server) => server.stop()));
  };
}
