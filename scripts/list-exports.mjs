#!/usr/bin/env node
// Lists the public names of every entry point (values and types), from the source entry files
// through the TypeScript checker: `node scripts/list-exports.mjs [--json]`. Used by
// test/docs/exports.test.ts (every public name is documented in the README) and to report the
// size of the public surface.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `loyalty-partner-sdk/<entry>` -> its source file, from the tsconfig `paths` the tests use. */
export function entryFiles() {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile).config;
  const entries = {};
  for (const [name, [file]] of Object.entries(config.compilerOptions.paths ?? {})) {
    if (name.startsWith('loyalty-partner-sdk')) entries[name] = join(root, file);
  }
  return entries;
}

/** Every exported name of each entry, split into values and types. */
export function listExports() {
  const entries = entryFiles();
  const program = ts.createProgram(Object.values(entries), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out = {};
  for (const [entry, file] of Object.entries(entries)) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`cannot read the exports of ${file}`);
    const values = [];
    const types = [];
    for (const exported of checker.getExportsOfModule(symbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(exported.name);
    }
    out[entry] = { values: values.sort(), types: types.sort() };
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const all = listExports();
  if (process.argv.includes('--json')) console.log(JSON.stringify(all, null, 2));
  else {
    const distinct = new Set();
    const distinctValues = new Set();
    for (const [entry, { values, types }] of Object.entries(all)) {
      for (const name of [...values, ...types]) distinct.add(name);
      for (const name of values) distinctValues.add(name);
      console.log(`${entry}: ${values.length} values, ${types.length} types`);
    }
    console.log(`distinct names: ${distinct.size} (${distinctValues.size} values)`);
  }
}
