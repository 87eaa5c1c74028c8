import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { entryFiles, listExports, publicProgram } from '../../scripts/list-exports.mjs';

// Every function, class and constant a user can import carries TSDoc with an @example: the house
// rule, checked on the exports of every entry point (both builds) as the compiler resolves them.
const root = fileURLToPath(new URL('../../', import.meta.url));
// The entries users import (tsconfig paths, which the tests and the README's public names use too),
// plus the Web builds that the `node` condition hides from those paths.
const WEB_BUILDS = ['src/index.ts', 'src/signature/index.ts', 'src/webhooks/index.ts'];
const ENTRIES: string[] = [
  ...new Set([
    ...Object.values(entryFiles() as Record<string, string>),
    ...WEB_BUILDS.map((file) => `${root}${file}`),
  ]),
];

describe('the public surface', () => {
  it('documents every exported function, class and constant with an @example', () => {
    const program = publicProgram(ENTRIES) as ts.Program;
    const checker = program.getTypeChecker();
    const undocumented = new Set<string>();
    let checked = 0;
    for (const entry of ENTRIES) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
      for (const exported of checker.getExportsOfModule(module)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        if (!(symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable)))
          continue;
        checked += 1;
        if (!symbol.getJsDocTags(checker).some((tag) => tag.name === 'example')) {
          const file = symbol.declarations?.[0]?.getSourceFile().fileName.replace(root, '');
          undocumented.add(`${exported.name} (${file})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect([...undocumented]).toEqual([]);
  }, 120_000); // a TypeScript program over every source file: slow on a busy machine

  // An example is copied into a user's file as it is: each name it imports from the package must
  // be exported by the entry it names, or the user's first try fails to compile.
  it('imports in every TSDoc example only what the entry it names exports', () => {
    const exported = listExports() as Record<string, { values: string[]; types: string[] }>;
    const missing: string[] = [];
    let imports = 0;
    const files = (readdirSync(join(root, 'src'), { recursive: true }) as string[]).filter((file) =>
      file.endsWith('.ts'),
    );
    for (const file of files) {
      const text = readFileSync(join(root, 'src', file), 'utf8');
      for (const [comment] of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
        if (!comment.includes('@example')) continue;
        const code = comment.replace(/^\s*\* ?/gm, '');
        for (const [, names, entry] of code.matchAll(
          /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(loyalty-partner-sdk[^']*)'/g,
        )) {
          const known = exported[entry!];
          for (const spec of names!
            .split(',')
            .map((name) => name.trim())
            .filter(Boolean)) {
            const name = spec.replace(/^type\s+/, '').split(/\s+as\s+/)[0]!;
            imports += 1;
            if (!known?.values.includes(name) && !known?.types.includes(name))
              missing.push(`${name} from '${entry}' (src/${file})`);
          }
        }
      }
    }
    expect(imports).toBeGreaterThan(200);
    expect(missing).toEqual([]);
  }, 120_000); // a TypeScript program over every source file: slow on a busy machine
});
