import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject, packageRoot as root } from './consumer-project.js';

// The build (tsup.config.ts, with code splitting) bundles each module of src/ into exactly one
// file of dist/, per format. These probes load every entry into one process and check what that promises: a
// name two entries export is the same value, and every error class extends the root's
// `LoyaltyError`, so `instanceof` holds whichever entry threw and whichever caught.
let consumer: ConsumerProject;
beforeAll(() => {
  consumer = createConsumerProject();
});
afterAll(() => consumer?.remove());

const SUBPATHS = [
  '',
  'signature',
  'webhooks',
  'node',
  'express',
  'next',
  'fetch',
  'fastify',
  'koa',
  'outbox',
];
const MORE = ['testing', 'postgres', 'redis'];
// Files of each format, the `node` builds first; the Web builds load in Node too (`/fetch`, `/next`).
const FILES = ['index.node', 'signature.node', 'webhooks.node', 'index', 'signature', 'webhooks'];
const ADAPTERS = ['node', 'express', 'next', 'fetch', 'fastify', 'koa', 'outbox', ...MORE];

// What the Node build of an entry replaces in its Web build (Node HMAC, undici, compiled schemas).
const NODE_VARIANTS = [
  'LoyaltyClient',
  'signPayload',
  'verifySignature',
  'createReceiver',
  'createEnvelope',
  'parsePayload',
];

/** Program text: compares the modules `mods` (an object of loaded entries) and prints findings. */
const compare = `
const variants = typeof crossBuilds === 'undefined' ? [] : ${JSON.stringify(NODE_VARIANTS)};
const rootError = Object.values(mods)[0].LoyaltyError;
const first = new Map(); const differ = []; const strays = []; let errors = 0;
for (const [entry, m] of Object.entries(mods)) for (const [name, value] of Object.entries(m)) {
  if (!first.has(name)) first.set(name, [entry, value]);
  else if (first.get(name)[1] !== value && !variants.includes(name)) differ.push(name + ': ' + first.get(name)[0] + ' and ' + entry);
  if (typeof value === 'function' && name.endsWith('Error')) {
    errors++;
    if (value !== rootError && !(value.prototype instanceof rootError)) strays.push(entry + ' ' + name);
  }
}
console.log(JSON.stringify({ differ, strays, errors: errors > 20 }));`;

const expected = { differ: [], strays: [], errors: true };

describe('one copy of each class and function across entries', () => {
  it('holds for the ESM build, every entry imported by its package name', () => {
    const imports = [...SUBPATHS, ...MORE]
      .map((sub, i) => `import * as m${i} from 'loyalty-partner-sdk${sub ? `/${sub}` : ''}';`)
      .join('\n');
    const mods = `const mods = { ${[...SUBPATHS, ...MORE].map((sub, i) => `'/${sub}': m${i}`).join(', ')} };`;
    expect(JSON.parse(consumer.run('one-copy.mjs', `${imports}\n${mods}${compare}`))).toEqual(expected);
  });

  it('holds for the ESM files, the Web builds loaded beside the Node ones', () => {
    const files = [...FILES, ...ADAPTERS];
    const imports = files.map((file, i) => `import * as m${i} from '${join(root, 'dist', `${file}.js`)}';`);
    const mods = `const crossBuilds = true; const mods = { ${files.map((file, i) => `'${file}': m${i}`).join(', ')} };`;
    expect(
      JSON.parse(consumer.run('one-copy-files.mjs', `${imports.join('\n')}\n${mods}${compare}`)),
    ).toEqual(expected);
  });

  it('gives the Node build of an entry exactly the names of its Web build', () => {
    // platform-node/webhooks.ts lists its values one by one: a name added to the Web build only
    // would be missing under the `node` condition.
    const pairs = ['index', 'signature', 'webhooks'];
    const imports = pairs.flatMap((file, i) => [
      `import * as web${i} from '${join(root, 'dist', `${file}.js`)}';`,
      `import * as node${i} from '${join(root, 'dist', `${file}.node.js`)}';`,
    ]);
    const names = pairs.map((file, i) => `['${file}', Object.keys(web${i}), Object.keys(node${i})]`);
    const differing = JSON.parse(
      consumer.run(
        'node-names.mjs',
        `${imports.join('\n')}\nconsole.log(JSON.stringify([${names.join(', ')}].filter(([, w, n]) => w.join() !== n.join()).map(([f]) => f)));`,
      ),
    );
    expect(differing).toEqual([]);
  });

  it('holds for the CommonJS files, whatever Node loads for `require`', () => {
    const files = [...FILES, ...ADAPTERS];
    const mods = `const crossBuilds = true; const mods = { ${files.map((file) => `'${file}': require('${join(root, 'dist', `${file}.cjs`)}')`).join(', ')} };`;
    expect(JSON.parse(consumer.run('one-copy.cjs', `${mods}${compare}`))).toEqual(expected);
  });
});

describe('every file of dist/', () => {
  // Shared chunks and lazy loads included: an import of a name a chunk does not export fails
  // here at link time in ESM, instead of reading `undefined` in CommonJS.
  const built = readdirSync(join(root, 'dist')).filter(
    (file) => /\.c?js$/.test(file) && !file.startsWith('cli.'),
  );

  it('links and runs as ESM', () => {
    const files = built.filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(20);
    const source = files.map((file) => `await import('${join(root, 'dist', file)}');`).join('\n');
    expect(consumer.run('all.mjs', `${source}\nconsole.log('${files.length} loaded');`)).toBe(
      `${files.length} loaded`,
    );
  });

  it('loads as CommonJS, each file requiring only CommonJS files', () => {
    const files = built.filter((file) => file.endsWith('.cjs'));
    expect(files.length).toBeGreaterThan(20);
    // Where Node can require ESM, a `.cjs` loading a `.js` chunk would pass and load a second copy.
    const esmLoads = files.filter((file) =>
      /(require|import)\('\.\/[^']+\.js'\)/.test(readFileSync(join(root, 'dist', file), 'utf8')),
    );
    expect(esmLoads).toEqual([]);
    const source = files.map((file) => `require('${join(root, 'dist', file)}');`).join('\n');
    expect(consumer.run('all.cjs', `${source}\nconsole.log('${files.length} loaded');`)).toBe(
      `${files.length} loaded`,
    );
  });
});
