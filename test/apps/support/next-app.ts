/*
 * Next.js apps built the way their users build them: `next build`, then `next start`. Each variant
 * is its own project under test/apps/next-builds/<name> (gitignored), assembled from the routes
 * in test/apps/next-app, fixtures/app-receiver.ts (which they import as the project's own
 * `fixtures/app-receiver`), the package's own examples/next-app-router/route.ts and the
 * variant's next.config.mjs. In it `next` is the variant's Next.js major (the `next15` npm alias for 15);
 * React, TypeScript and the rest resolve to the repository's one node_modules, and
 * `loyalty-partner-sdk` to the built package (dist/ through its exports map), as once installed.
 * Each variant is built once per run, on its first start.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../support/real-servers.js';
import { APP_SECRET } from '../fixtures/app-receiver.js';
import type { RunningApp } from './app-conformance.js';
import { root, startProcess } from './process-app.js';

export interface NextVariant {
  /** Its directory under test/apps/next-builds. */
  name: string;
  /** The installed npm package of its Next.js major: `next` (16) or `next15` (`npm:next@^15`). */
  nextPackage: 'next' | 'next15';
  /** Its next.config.mjs, as create-next-app of that major writes it. */
  config: Record<string, unknown>;
  /**
   * Whether it also builds the routes that export `runtime = 'edge'` (app/edge/): only a config
   * without `cacheComponents` allows them (Next.js 16 refuses any `runtime` export with it on).
   */
  edge: boolean;
}

/** A Next.js app, built on first use: what `next build` printed, or rejects with it if it failed. */
export interface NextApp {
  buildOutput(): Promise<string>;
  /** `next start` on a free loopback port. */
  start(): Promise<RunningApp>;
}

const builds = join(root, 'test/apps/next-builds');
const source = join(root, 'test/apps/next-app');
const example = join(root, 'examples/next-app-router/route.ts');
const env = { NEXT_TELEMETRY_DISABLED: '1' };

/** The secret examples/next-app-router/route.ts reads for the conformance tenant (merchant-1). */
export const EXAMPLE_SECRET_ENV = 'LOYALTY_SECRET_MERCHANT_1';
/** Where each app serves the example route, on the Node.js runtime and (when built) the edge. */
export const EXAMPLE_PATH = '/api/loyalty/webhooks';
export const EDGE_EXAMPLE_PATH = '/edge/api/loyalty/webhooks';

let shared: Promise<void> | undefined;

/** What every variant shares: the built package, in a node_modules beside the variants. */
function prepareShared(): Promise<void> {
  shared ??= (async () => {
    if (!existsSync(join(root, 'dist/next.js')))
      throw new Error('dist/ is missing: run `npm run build` first');
    await rm(builds, { recursive: true, force: true });
    await mkdir(join(builds, 'node_modules'), { recursive: true });
    await symlink(root, join(builds, 'node_modules/loyalty-partner-sdk'), 'dir');
  })();
  return shared;
}

async function assemble(variant: NextVariant): Promise<string> {
  await prepareShared();
  const dir = join(builds, variant.name);
  await cp(source, dir, {
    recursive: true,
    filter: (path) =>
      !['.next', 'node_modules', 'next-env.d.ts'].some((name) => path.startsWith(join(source, name))) &&
      (variant.edge || !path.startsWith(join(source, 'app/edge'))),
  });
  await writeFile(join(dir, 'next.config.mjs'), `export default ${JSON.stringify(variant.config)};\n`);
  if (variant.nextPackage !== 'next') {
    // Next.js requires itself by name (`next/dist/...`): under its alias's own directory that name
    // would reach the repository's `next` (16), so the variant gets the alias as its own `next`,
    // hard-linked (a copy in no time and no space), not symlinked (Node resolves a symlink's target);
    // copied where hard links cannot reach (node_modules on another file system).
    await mkdir(join(dir, 'node_modules'));
    const from = join(root, 'node_modules', variant.nextPackage);
    const to = join(dir, 'node_modules/next');
    await promisify(execFile)('cp', ['-al', from, to]).catch(async () => {
      await rm(to, { recursive: true, force: true });
      await cp(from, to, { recursive: true, verbatimSymlinks: true });
    });
  }
  // Inside the project: Next.js 15 compiles no TypeScript from outside it.
  await cp(join(root, 'test/apps/fixtures/app-receiver.ts'), join(dir, 'fixtures/app-receiver.ts'));
  // The example exactly as published, at the path its comment names.
  await cp(example, join(dir, 'app/api/loyalty/webhooks/route.ts'));
  if (variant.edge) {
    // And as its comment says it runs on the edge: the same file plus one line.
    const edgeExample = join(dir, 'app/edge/api/loyalty/webhooks/route.ts');
    await cp(example, edgeExample);
    await appendFile(edgeExample, "\nexport const runtime = 'edge';\n");
  }
  return dir;
}

/** The variant's own `next`: its node_modules/next, else the repository's (16). */
function nextBin(dir: string): string {
  const own = join(dir, 'node_modules/next/dist/bin/next');
  return existsSync(own) ? own : join(root, 'node_modules/next/dist/bin/next');
}

export function nextApp(variant: NextVariant): NextApp {
  let built: Promise<{ dir: string; output: string }> | undefined;
  const build = () => {
    built ??= (async () => {
      const dir = await assemble(variant);
      try {
        const { stdout, stderr } = await promisify(execFile)(process.execPath, [nextBin(dir), 'build'], {
          cwd: dir,
          env: { ...process.env, ...env, NO_COLOR: '1' },
          timeout: 400_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        return { dir, output: `${stdout}\n${stderr}` };
      } catch (error) {
        const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
        throw new Error(`next build of ${variant.name} failed:\n${stdout}\n${stderr}`, { cause: error });
      }
    })();
    return built;
  };
  return {
    buildOutput: async () => (await build()).output,
    async start() {
      const { dir } = await build();
      const port = await freePort();
      const started = await startProcess(
        process.execPath,
        [nextBin(dir), 'start', '-H', '127.0.0.1', '-p', String(port)],
        {
          cwd: dir,
          env: { ...env, [EXAMPLE_SECRET_ENV]: APP_SECRET },
          listening: /(Ready in)/,
        },
      );
      return { ...started, origin: `http://127.0.0.1:${port}` };
    },
  };
}
