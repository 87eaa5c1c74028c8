import { randomBytes } from 'node:crypto';
import { describe, inject } from 'vitest';

/**
 * The real servers of this test run (see `global-setup.ts`). A suite that needs one wraps itself
 * in `describeWithPostgres` / `describeWithRedis`: without the server it is reported as skipped,
 * and the run has already printed which packages to install; `.ci/run` makes a missing server
 * fail the run instead.
 *
 * @example
 * describeWithPostgres('postgresInbox', (url) => { it('claims once', async () => { ... }); });
 */
export const postgresUrl = (): string | null => inject('postgresUrl');
export const redisUrl = (): string | null => inject('redisUrl');

export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = postgresUrl();
  if (url) describe(name, () => body(url));
  else describe.skip(`${name} (no PostgreSQL: apt-get install -y postgresql)`, () => body(''));
}

export function describeWithRedis(name: string, body: (url: string) => void): void {
  const url = redisUrl();
  if (url) describe(name, () => body(url));
  else describe.skip(`${name} (no Redis: apt-get install -y redis-server)`, () => body(''));
}

/** A schema or key-prefix name of its own for one suite, so suites can share a server. */
export const uniqueName = (prefix: string): string => `${prefix}_${randomBytes(5).toString('hex')}`;
