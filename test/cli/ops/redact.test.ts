import { expect, it } from 'vitest';
import { freePort } from '../../support/real-servers.js';
import { cli } from '../run.js';

/* Issue 42 item 11: a password in a Redis URL, as user:pass@ or as ?password=, is never printed. */

for (const [form, url] of [
  ['user:pass@', (port: number) => `redis://app:s3cret-pw@127.0.0.1:${port}`],
  ['?password=', (port: number) => `redis://127.0.0.1:${port}/?password=s3cret-pw`],
  ['both', (port: number) => `redis://app:s3cret-pw@127.0.0.1:${port}/0?password=s3cret-pw&db=0`],
] as const) {
  it(`says Redis cannot be reached without the password given as ${form}`, async () => {
    const redis = url(await freePort());
    const answer = await cli(['inbox', 'stats', '--redis', redis]);
    expect(answer.code).not.toBe(0);
    expect(answer.stderr).toContain('cannot reach Redis at redis://');
    expect(answer.stderr).toContain('***');
    expect(`${answer.stdout}${answer.stderr}`).not.toContain('s3cret-pw');
  });
}
