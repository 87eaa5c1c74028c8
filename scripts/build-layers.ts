/**
 * The layered build of `tsup.config.ts`: every module of `src/` is bundled into exactly ONE file
 * of `dist/` (per format), so each class exists once however many entries a process imports, and
 * each entry's static import graph is a handful of files instead of tsup's dozens of shared chunks
 * (Node's ESM loader costs about 1 ms per file, whatever its size).
 *
 * A module's file is its owner: a public entry (its source, plus the modules only it uses) or an
 * internal layer (`layer-<name>.js`, not in `exports`), which re-exports every module it owns.
 * An import from one owner's module into another's is left external, rewritten to the other
 * owner's file: the bundles link to each other instead of copying. `COPIED` modules (barrels and
 * stateless one-liners, no class, no state) are bundled into each file that imports them.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';

/** One owner of modules: a public entry or an internal layer, and the modules it owns. */
export interface Owner {
  name: string;
  /** Paths under `src/`, `/`-separated, that this owner bundles. */
  owns: RegExp;
  /** A public entry's source module; layers have none (their file re-exports what they own). */
  source?: string;
  /** An entry loaded only by the package itself (a lazy load): not in `exports`, no `.d.ts`. */
  internal?: true;
}

export interface LayerPlan {
  /** Owners in the order their `owns` are tried; a public entry owns its `source` first. */
  owners: Owner[];
  /** Modules bundled into every file that imports them: barrels and stateless helpers. */
  copied: RegExp;
  /**
   * zod, bundled (not left to the user's node_modules) into ONE layer file of its own, holding
   * exactly the zod functions `src/` calls: the modules that build schemas can then sit in several
   * layers over one copy of zod. `exclude`: names `src/` reads from `z.` in types only.
   */
  zod: { layer: string; exclude: string[] };
}

const SRC = resolve('src');
const LAYER_DIR = resolve('.cache/layers');
const SKIP = Symbol('layers: resolving for the plugin itself');

const srcPath = (file: string) => relative(SRC, file).split('\\').join('/');

function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The owner of a module of `src/`, or `undefined` for a copied one. Throws for an orphan. */
export function ownerOf(plan: LayerPlan, file: string): Owner | undefined {
  const path = srcPath(file);
  if (plan.copied.test(path)) return undefined;
  const owner =
    plan.owners.find((candidate) => candidate.source === path) ??
    plan.owners.find((candidate) => candidate.owns.test(path));
  if (!owner) throw new Error(`build layers: no file owns src/${path}; add it to an owner in tsup.config.ts`);
  return owner;
}

/**
 * tsup's `entry`: every public entry's source, and for each layer a generated module (under
 * `.cache/layers/`, gitignored) that re-exports every module the layer owns.
 */
export async function layerEntries(plan: LayerPlan): Promise<Record<string, string>> {
  mkdirSync(LAYER_DIR, { recursive: true });
  const files = sourceFiles();
  const entries: Record<string, string> = {};
  const zodBarrel = join(LAYER_DIR, `${plan.zod.layer}.ts`);
  writeFileSync(zodBarrel, await zodReExports(files, plan.zod.exclude));
  entries[plan.zod.layer] = relative(process.cwd(), zodBarrel);
  for (const owner of plan.owners) {
    if (owner.source) {
      entries[owner.name] = `src/${owner.source}`;
      continue;
    }
    const owned = files.filter((file) => ownerOf(plan, file) === owner);
    const barrel = join(LAYER_DIR, `${owner.name}.ts`);
    writeFileSync(barrel, owned.map((file) => `export * from ${JSON.stringify(file)};\n`).join(''));
    entries[owner.name] = relative(process.cwd(), barrel);
  }
  return entries;
}

/**
 * The zod layer's module: the `z.<name>` values that `src/` uses (`import * as z from 'zod/mini'`
 * everywhere), and what it imports by name from zod's packages. A name missing here would be
 * `undefined` at run time, so every name zod/mini exports that `src/` mentions is kept.
 */
async function zodReExports(files: string[], exclude: string[]): Promise<string> {
  const mini = new Set(Object.keys(await import('zod/mini')));
  const used = new Set<string>();
  const named = new Map<string, Set<string>>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    if (/import \* as z from 'zod\/mini'/.test(text)) {
      for (const [, name] of text.matchAll(/\bz\.([A-Za-z_$][\w$]*)/g)) {
        if (name && mini.has(name) && !exclude.includes(name)) used.add(name);
      }
    }
    for (const [, names, from] of text.matchAll(/^import \{([^}]*)\} from '(zod[^']*)'/gm)) {
      const set = named.get(from!) ?? new Set<string>();
      for (const name of names!.split(',').map((part) => part.trim())) if (name) set.add(name);
      named.set(from!, set);
    }
  }
  const lines = [`export { ${[...used].sort().join(', ')} } from 'zod/mini';`];
  for (const [from, names] of named) lines.push(`export { ${[...names].sort().join(', ')} } from '${from}';`);
  return `${lines.join('\n')}\n`;
}

/** The owner whose file an importer is bundled into: a layer's barrel, or a module of `src/`. */
function importerOwner(plan: LayerPlan, importer: string): Owner | undefined {
  if (importer.startsWith(LAYER_DIR)) {
    const name = relative(LAYER_DIR, importer).replace(/\.ts$/, '');
    return plan.owners.find((owner) => owner.name === name) ?? { name, owns: /^$/ };
  }
  return ownerOf(plan, importer);
}

/** The esbuild plugin that rewrites each import across owners to the other owner's file. */
export function layersPlugin(plan: LayerPlan): Plugin {
  return {
    name: 'layers',
    setup(build) {
      // tsup builds its CommonJS as ESM that rollup then converts (`treeshake`), so the format of
      // the output is the one tsup defines for the code, not esbuild's own `format`.
      const format = build.initialOptions.define?.TSUP_FORMAT ?? JSON.stringify(build.initialOptions.format);
      const extension = JSON.parse(format) === 'cjs' ? '.cjs' : '.js';
      const fail = (text: string) => ({ errors: [{ text: `build layers: ${text}` }] });

      build.onResolve({ filter: /^zod(\/|$)/ }, (args) => {
        if (args.importer.includes('/node_modules/')) return undefined;
        if (importerOwner(plan, args.importer)?.name === plan.zod.layer) return undefined;
        return { path: `./${plan.zod.layer}${extension}`, external: true };
      });

      build.onResolve({ filter: /^\.\.?\// }, async (args) => {
        if (
          args.pluginData === SKIP ||
          args.kind === 'entry-point' ||
          args.importer.includes('/node_modules/')
        ) {
          return undefined;
        }
        const { path, errors } = await build.resolve(args.path, {
          resolveDir: args.resolveDir,
          importer: args.importer,
          kind: args.kind,
          pluginData: SKIP,
        });
        if (errors.length > 0 || !path.startsWith(SRC)) return { path, errors };
        const from = importerOwner(plan, args.importer);
        const to = ownerOf(plan, path);
        if (!to) return { path }; // copied into the importer's file
        if (from === to) {
          // Without code splitting, esbuild would inline the module: the lazy load would be lost.
          if (args.kind === 'dynamic-import')
            return fail(`${args.importer} loads ${path} lazily from its own file`);
          return { path };
        }
        if (!from && to.source) return fail(`copied ${args.importer} imports entry ${to.name}`);
        if (to.source && srcPath(path) !== to.source) {
          return fail(`${args.importer} imports ${path}, private to entry ${to.name}: give it to a layer`);
        }
        return { path: `./${to.name}${extension}`, external: true };
      });
    },
  };
}
