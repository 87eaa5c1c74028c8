import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// (In `npm run test:apps`: tsc without skipLibCheck takes about 45 s per project here.)
// Consumer projects outside the repository, type-checked by tsc with skipLibCheck off, holding a
// copy of the built package and only the packages each kind of project would have: no msw, and
// in the Workers project no @types/node.
const root = resolve(import.meta.dirname, '../..');
const tsc = join(root, 'node_modules/typescript/bin/tsc');
let work: string;

async function project(name: string, deps: string[], tsconfig: object, files: Record<string, string>) {
  const dir = join(work, name);
  await mkdir(join(dir, 'node_modules/@types'), { recursive: true });
  const pkg = join(dir, 'node_modules/loyalty-partner-sdk');
  await mkdir(pkg);
  await cp(join(root, 'dist'), join(pkg, 'dist'), { recursive: true });
  await cp(join(root, 'package.json'), join(pkg, 'package.json'));
  for (const dep of ['zod', 'undici', 'uuid', ...deps]) {
    await mkdir(join(dir, 'node_modules', dep, '..'), { recursive: true });
    await symlink(join(root, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [file, source] of Object.entries(files)) await writeFile(join(dir, file), source);
  try {
    execFileSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return String((error as { stdout?: string }).stdout);
  }
}

const IMPORTS = `import { LoyaltyClient } from 'loyalty-partner-sdk';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { fastifyWebhook } from 'loyalty-partner-sdk/fastify';
import { koaWebhook } from 'loyalty-partner-sdk/koa';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import type { Emulator } from 'loyalty-partner-sdk/testing';
export const names = [LoyaltyClient, expressWebhook, fastifyWebhook, koaWebhook, fetchHandler, createReceiver];
export type Types = [Emulator, ReturnType<Emulator['mswHandlers']>];
`;

beforeAll(async () => {
  if (!existsSync(join(root, 'dist/index.node.d.cts')))
    throw new Error('dist/ is missing: run `npm run build` first');
  work = await mkdtemp(join(tmpdir(), 'types-consumer-'));
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the published types, in consumer projects without skipLibCheck', () => {
  it.each([
    ['node10 (module commonjs)', { module: 'commonjs', moduleResolution: 'node10' }],
    ['node16', { module: 'node16', moduleResolution: 'node16' }],
    ['bundler', { module: 'esnext', moduleResolution: 'bundler' }],
  ])(
    'resolve every entry under %s, with msw not installed',
    async (name, options) => {
      const errors = await project(
        name.split(' ')[0]!,
        ['@types/node'],
        {
          compilerOptions: {
            ...options,
            strict: true,
            skipLibCheck: false,
            esModuleInterop: true,
            noEmit: true,
            types: ['node'],
            target: 'es2022',
            lib: ['es2023', 'dom'],
          },
          files: ['index.ts'],
        },
        { 'index.ts': IMPORTS },
      );
      expect(errors).toBe('');
    },
    120_000,
  );

  it('type-check examples/hono-receiver.ts in a Workers project without @types/node', async () => {
    const example = await readFile(join(root, 'examples/hono-receiver.ts'), 'utf8');
    const errors = await project(
      'workers',
      ['hono', '@cloudflare/workers-types'],
      {
        compilerOptions: {
          module: 'esnext',
          moduleResolution: 'bundler',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          target: 'es2022',
          lib: ['es2023'],
          types: ['@cloudflare/workers-types'],
        },
        files: ['index.ts'],
      },
      { 'index.ts': example },
    );
    expect(errors).toBe('');
  }, 120_000);
});
