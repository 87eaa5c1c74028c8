// Every ```ts block of README.md becomes a module under examples/readme/ so that `tsc --noEmit`
// type-checks it against the package's public names (tsconfig `paths` map them to src/).
// A sample that does not compile fails `npm test`; the README cannot drift from the code.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const outDir = new URL('../examples/readme/', import.meta.url);
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const fence = /^```ts\n([\s\S]*?)^```$/gm;
let count = 0;
for (const match of readme.matchAll(fence)) {
  count += 1;
  const line = readme.slice(0, match.index).split('\n').length;
  const body = match[1] ?? '';
  // `export {}` makes every sample a module, so samples do not collide on top-level names.
  writeFileSync(
    new URL(`snippet-${String(count).padStart(2, '0')}.ts`, outDir),
    `// README.md line ${line}\n${body}\nexport {};\n`,
  );
}
console.log(`readme-snippets: ${count} TypeScript samples extracted from README.md`);
