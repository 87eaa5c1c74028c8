import { readFileSync } from 'node:fs';
import { receiverCases } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

const guide = readFileSync(new URL('../../docs/test-your-receiver.md', import.meta.url), 'utf8');
const section = guide.slice(guide.indexOf('## What it checks'), guide.indexOf('## What you see'));

describe('docs/test-your-receiver.md', () => {
  it('lists every case of the kit by id, with its name, in the order check-receiver sends them', () => {
    const rows = [...section.matchAll(/^\| `([\w-]+)` \| (.+?) \|/gm)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual([
      ...receiverCases.map((item) => [item.id, item.name]),
      ['prompt-answers', 'answers every delivery within 5000 ms (`--slow-ms`)'],
    ]);
  });
});
