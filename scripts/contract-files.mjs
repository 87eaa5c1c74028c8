// Writes the contract files into dist/contract/ (`npm run build` runs it after tsup): the
// AsyncAPI document and the JSON Schemas that scripts/contract-files.ts generates from the zod
// catalogue in src/contract/. esbuild (the compiler tsup already uses) turns that TypeScript into
// one module under .cache/ for Node to run; zod stays external, so it is the installed zod.
//
// Only asyncapi.json and schemas/ are written: other scripts add their own files to
// dist/contract/ (the conformance kit's vectors/), before or after this one.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const generator = '.cache/contract-files/generate.mjs';
const out = 'dist/contract';

await build({
  entryPoints: ['scripts/contract-files.ts'],
  outfile: generator,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { contractFiles } = await import(pathToFileURL(generator).href);

await rm(join(out, 'schemas'), { recursive: true, force: true });
const files = Object.entries(contractFiles());
for (const [path, document] of files) {
  await mkdir(dirname(join(out, path)), { recursive: true });
  await writeFile(join(out, path), `${JSON.stringify(document, null, 2)}\n`);
}
console.log(`contract files: ${files.length} written to ${out}/`);
