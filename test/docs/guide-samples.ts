import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The code samples of README.md and docs/*.md, as a reader finds them. Every TypeScript block
 * carries one marker on the line above it:
 *
 * - `<!-- sample: receiver.mts -->`: a program; the reader saves it under that name and runs it
 *   as the guide says (`npx tsx receiver.mts`), and `test/docs/samples.slow.test.ts` does too.
 * - `<!-- fragment: why -->`: a part of a program (a type, the lines to add to a sample above),
 *   type-checked by `npm run typecheck` like every block, not run on its own.
 */
export interface GuideSample {
  readonly guide: string;
  /** The line of the opening fence, for messages. */
  readonly line: number;
  readonly source: string;
  /** The file the reader saves a program as; undefined for a fragment. */
  readonly file?: string;
  /** Why a fragment is not a program; undefined for a program. */
  readonly fragment?: string;
}

export interface Guide {
  /** `README.md` or `docs/<name>.md`, relative to the repository. */
  readonly name: string;
  readonly samples: readonly GuideSample[];
  /** Every package the guide tells the reader to install (`npm install ...`), the SDK among them. */
  readonly dependencies: readonly string[];
  /** The same for `npm install -D ...`. */
  readonly devDependencies: readonly string[];
  /** Blocks without a marker, as `guide:line`: a new sample must say how it runs. */
  readonly unmarked: readonly string[];
}

const FENCE = /^```(?:ts|typescript)\n([\s\S]*?)^```$/gm;
const SAMPLE = /<!-- sample: (\S+) -->/;
const FRAGMENT = /<!-- fragment: (.+?) -->/;
// `npm install` as written in a shell block or an inline code span, up to its end or a comment.
const INSTALL = /npm (?:install|i) ([^`\n#]+)/g;

export function readGuide(root: string, name: string): Guide {
  const text = readFileSync(join(root, name), 'utf8');
  const samples: GuideSample[] = [];
  const unmarked: string[] = [];
  for (const match of text.matchAll(FENCE)) {
    const before = text.slice(0, match.index);
    const line = before.split('\n').length;
    // The marker is on one of the two lines above the fence (the README's quick starts also have
    // `<!-- quick-start: name -->` right above theirs).
    const above = before.split('\n').slice(-3).join('\n');
    const file = SAMPLE.exec(above)?.[1];
    const fragment = FRAGMENT.exec(above)?.[1];
    if (!file && !fragment) unmarked.push(`${name}:${line}`);
    samples.push({ guide: name, line, source: match[1] ?? '', file, fragment });
  }
  const dependencies = new Set<string>();
  const devDependencies = new Set<string>();
  for (const [, args] of text.matchAll(INSTALL)) {
    const words = (args ?? '').trim().split(/\s+/);
    const dev = words.includes('-D') || words.includes('--save-dev');
    for (const word of words.filter((w) => w && !w.startsWith('-')))
      (dev ? devDependencies : dependencies).add(word);
  }
  return {
    name,
    samples,
    dependencies: [...dependencies],
    devDependencies: [...devDependencies],
    unmarked,
  };
}

/** README.md and every guide of docs/, in a stable order. */
export function readGuides(root: string): Guide[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((name) => readGuide(root, name));
}
