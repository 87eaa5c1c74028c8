// Every ```ts block of README.md and docs/*.md becomes a module under examples/readme/ (ignored by
// git) so that `tsc --noEmit` type-checks it against the package's public names (tsconfig `paths`
// map them to src/). A sample that does not compile fails `npm test`: the docs cannot drift from
// the code. A block that cannot compile on its own (a Prisma client generated from your schema)
// uses another fence language and says why. A program marked `<!-- sample: <file> -->` is written
// under that name in a directory of its guide, so the samples that import one another
// (`./receiver.mjs`) compile as the reader's files do; test/docs/samples.slow.test.ts runs them.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);
const outDir = new URL('examples/readme/', root);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const sources = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

const fence = /^```ts\n([\s\S]*?)^```$/gm;
let total = 0;
for (const source of sources) {
  const text = readFileSync(new URL(source, root), 'utf8');
  const stem = source
    .replace(/^docs\//, 'docs-')
    .replace(/\.md$/, '')
    .toLowerCase();
  let count = 0;
  for (const match of text.matchAll(fence)) {
    count += 1;
    const line = text.slice(0, match.index).split('\n').length;
    const file = /<!-- sample: (\S+) -->\n(?:<!--.*-->\n)?$/.exec(text.slice(0, match.index))?.[1];
    const target = file
      ? new URL(`${stem}/${file}`, outDir)
      : new URL(`${stem}-${String(count).padStart(2, '0')}.ts`, outDir);
    mkdirSync(new URL('.', target), { recursive: true });
    // `export {}` makes every sample a module, so samples do not collide on top-level names.
    writeFileSync(target, `// ${source} line ${line}\n${match[1] ?? ''}\nexport {};\n`);
  }
  total += count;
}
console.log(`readme-snippets: ${total} TypeScript samples extracted from ${sources.length} files`);
