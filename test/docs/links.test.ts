import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, githubSlug, repoRoot, userDocs } from './markdown-links.js';

describe('the links of README.md and docs/', () => {
  it('all lead to a file that exists and an anchor it has', () => {
    const files = userDocs();
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((file) => brokenLinks(file))).toEqual([]);
  });

  it('are checked: a missing file and a missing anchor are both reported', () => {
    const file = join(repoRoot, 'docs/README.md');
    const text = '# Here\n\n[a](missing.md) [b](#nowhere) [c](#here) [d](outbox.md#nowhere) `[e](x.md)`\n';
    expect(brokenLinks(file, text)).toEqual([
      'docs/README.md:3: missing.md (no such file)',
      'docs/README.md:3: #nowhere (no such anchor)',
      'docs/README.md:3: outbox.md#nowhere (no such anchor)',
    ]);
  });

  it('use the anchors GitHub makes from headings', () => {
    expect(githubSlug('The `loyalty-partner` command')).toBe('the-loyalty-partner-command');
    expect(githubSlug('node:http')).toBe('nodehttp');
    expect(githubSlug('Hono, Bun, Deno and Workers')).toBe('hono-bun-deno-and-workers');
    expect([...anchorsOf('## Limits\n\n```sh\n# not a heading\n```\n## Limits\n')]).toEqual([
      'limits',
      'limits-1',
    ]);
  });
});
