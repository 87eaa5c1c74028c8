import { execFile } from 'node:child_process';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describeAppConformance } from './support/app-conformance.js';
import { binary, root, startProcess } from './support/process-app.js';

// A Next.js 16 app with create-next-app's defaults (cacheComponents on), built with `next build`
// and served by `next start`, with App Router routes and pages/api routes (test/apps/next-app).
// The app imports the built package through node_modules/loyalty-partner-sdk, as once installed.
const app = join(root, 'test/apps/next-app');
const env = { NEXT_TELEMETRY_DISABLED: '1' };
let built: Promise<void> | undefined;

function build(): Promise<void> {
  built ??= (async () => {
    await mkdir(join(app, 'node_modules'), { recursive: true });
    await rm(join(app, 'node_modules/loyalty-partner-sdk'), { force: true });
    await symlink(root, join(app, 'node_modules/loyalty-partner-sdk'), 'dir');
    await promisify(execFile)(binary('next', 'next'), ['build'], {
      cwd: app,
      env: { ...process.env, ...env },
      timeout: 280_000,
      maxBuffer: 16 * 1024 * 1024,
    });
  })();
  return built;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

async function nextStart() {
  await build();
  const port = await freePort();
  const started = await startProcess(
    binary('next', 'next'),
    ['start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: app,
      env,
      listening: /(Ready in)/,
    },
  );
  return { ...started, origin: `http://127.0.0.1:${port}` };
}

describeAppConformance('Next.js 16 App Router (next build, next start, Node.js runtime)', nextStart, {
  expect: 'refused',
  framework: 'Next.js App Router',
  fix: /no request\.json\(\)/,
});

describeAppConformance(
  'Next.js 16 pages/api (next build, next start)',
  nextStart,
  {
    expect: 'refused',
    framework: 'Next.js pages/api',
    fix: /bodyParser: false/,
    parserAnswersNonJson: 'Next.js answers 400 Invalid JSON before the route runs',
  },
  { webhook: '/api/pages/webhooks', parsed: '/api/parsed/webhooks' },
);
