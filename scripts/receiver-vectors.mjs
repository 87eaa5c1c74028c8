#!/usr/bin/env node
// Writes the conformance kit's cases as test vectors, one JSON file per case, for partners who
// test their receiver in their own CI without Node: `dist/contract/vectors/<case id>.json`
// (published as `loyalty-partner-sdk/contract/vectors/*.json`). Each holds the exact request
// (headers, body as text and base64), the `now` to judge it at, the published test secret and the
// expected answer. Run by `npm run build` after tsup, from the built `dist/testing.js`, so the
// vectors come from the same case list `check-receiver` sends.
//
//   node scripts/receiver-vectors.mjs [--out <dir>]

import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out');
const out = at === -1 ? join(root, 'dist/contract/vectors') : process.argv[at + 1];
if (!out) throw new Error('--out needs a directory');

const { receiverVectors } = await import(pathToFileURL(join(root, 'dist/testing.js')).href);
const vectors = receiverVectors();
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
for (const vector of vectors) {
  await writeFile(join(out, `${vector.id}.json`), `${JSON.stringify(vector, null, 2)}\n`);
}
console.log(`receiver-vectors: wrote ${vectors.length} vectors to ${out}`);
