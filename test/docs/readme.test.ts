import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { EXIT_CODE_TABLE } from '../../src/cli/exit-codes.js';
import { guideWithSection } from './generated-sections.js';

const START = '<!-- commands:start -->';
const END = '<!-- commands:end -->';

/** The README's command table, from the CLI's own list (UPDATE_DOCS=1 rewrites the README). */
function commandSection(): string {
  const commands = COMMANDS.map((c) => `| \`${c.name}\` | ${c.summary} |`);
  const exits = EXIT_CODE_TABLE.map(({ code, meaning }) => `| ${code} | ${meaning} |`);
  return [
    START,
    '| command | what it does |',
    '|---|---|',
    ...commands,
    '',
    '| exit code | meaning |',
    '|---|---|',
    ...exits,
    END,
  ].join('\n');
}

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('shows the two fresh-machine commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });

  it('stays a hub a newcomer reads in one sitting: at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('marks its three quick starts (four blocks) for test/package/quick-starts.test.ts', () => {
    const marked = [...readme.matchAll(/^<!-- quick-start: ([a-z]+) -->\n```ts\n/gm)].map((m) => m[1]);
    expect(marked).toEqual(['pos', 'express', 'next', 'emulator']);
  });

  it('lists every command of the CLI and its exit codes, generated from the CLI itself', () => {
    const text = guideWithSection(new URL('../../README.md', import.meta.url), commandSection(), START, END);
    expect(text).toContain(commandSection());
  });

  it('keeps no unfilled section markers', () => {
    expect(readme).not.toMatch(/<!-- section:/);
  });
});
