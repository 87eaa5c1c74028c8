#!/usr/bin/env node
// Lists the public names of every entry point (values and types), from the source entry files
// through the TypeScript checker: `node scripts/list-exports.mjs [--json | --markdown]`. Used by
// test/docs/exports.test.ts (every public name has a summary; the first-wave entries stay within
// their budget of run-time exports) and to report the size of the public surface. `--markdown`
// prints a table per entry to paste into documentation; the script writes no file.

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
    const summaries = {};
    for (const exported of checker.getExportsOfModule(symbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      (target.flags & ts.SymbolFlags.Value ? values : types).push(exported.name);
      summaries[exported.name] = summaryOf(ts.displayPartsToString(target.getDocumentationComment(checker)));
    }
    out[entry] = { values: values.sort(), types: types.sort(), summaries };
  }
  return out;
}

/** The first sentence of a TSDoc comment, on one line, safe inside a Markdown table cell. */
function summaryOf(doc) {
  const text = doc.replace(/\s+/g, ' ').trim();
  const end = text.search(/[.:](\s|$)/);
  return (end >= 0 ? text.slice(0, end + 1) : text).replace(/\|/g, '\\|');
}

/** The entries of the first wave, whose run-time exports share one budget (FIRST_WAVE_BUDGET). */
export const FIRST_WAVE = [
  'loyalty-partner-sdk',
  'loyalty-partner-sdk/signature',
  'loyalty-partner-sdk/webhooks',
  'loyalty-partner-sdk/node',
  'loyalty-partner-sdk/express',
  'loyalty-partner-sdk/next',
  'loyalty-partner-sdk/fetch',
];
/** The most run-time exports (values) the first-wave entries may have, each entry's counted once. */
export const FIRST_WAVE_BUDGET = 50;

/** Run-time exports of the first-wave entries: the distinct values of each entry, summed. */
export function firstWaveValues(all = listExports()) {
  return FIRST_WAVE.reduce((sum, entry) => sum + new Set(all[entry].values).size, 0);
}

/** Markdown tables: every export of every entry, with its TSDoc summary. */
export function renderPublicNames(all = listExports()) {
  const lines = [];
  for (const [entry, { values, types, summaries }] of Object.entries(all)) {
    lines.push(`**\`${entry}\`**`, '', '| name | kind | what it is |', '|---|---|---|');
    for (const name of values) lines.push(`| \`${name}\` | value | ${summaries[name] || ''} |`);
    for (const name of types) lines.push(`| \`${name}\` | type | ${summaries[name] || ''} |`);
    lines.push('');
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--markdown')) {
    console.log(renderPublicNames());
    process.exit(0);
  }
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
    console.log(`first-wave run-time exports: ${firstWaveValues(all)} of at most ${FIRST_WAVE_BUDGET}`);
  }
}
