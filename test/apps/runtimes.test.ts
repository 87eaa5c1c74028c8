import { freePort } from '../support/real-servers.js';
import { describeAppConformance } from './support/app-conformance.js';
import { appDirectory, binary, startProcess } from './support/process-app.js';

// The fetch app (fixtures/fetch-app.ts) served by the runtimes themselves, each from its npm
// package: Bun, Deno, and workerd under `wrangler dev`. A runtime whose install failed fails here,
// naming the package; it is never skipped.
const HINT = {
  expect: 'refused',
  framework: 'fetch handler (Hono, Bun, Deno, Workers)',
  fix: /c\.req\.raw/,
} as const;

describeAppConformance(
  'Bun',
  async () => {
    const dir = await appDirectory('bun-app');
    return startProcess(binary('bun', 'bun'), ['run', 'bun-server.ts'], {
      cwd: dir,
      listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
      cleanup: dir,
    });
  },
  HINT,
);

describeAppConformance(
  'Deno',
  async () => {
    const dir = await appDirectory('deno-app');
    return startProcess(
      binary('deno', 'deno'),
      ['run', '--allow-net', '--allow-read', '--allow-env', '--allow-sys', 'deno-server.ts'],
      {
        cwd: dir,
        env: { DENO_NO_UPDATE_CHECK: '1' },
        listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
        cleanup: dir,
      },
    );
  },
  HINT,
);

describeAppConformance(
  'workerd (wrangler dev)',
  async () => {
    const dir = await appDirectory('workerd-app');
    const port = await freePort();
    return startProcess(
      binary('wrangler', 'wrangler'),
      ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(await freePort())],
      {
        cwd: dir,
        env: { WRANGLER_SEND_METRICS: 'false' },
        listening: /Ready on (http:\/\/127\.0\.0\.1:\d+)/,
        timeoutMs: 90_000,
        cleanup: dir,
      },
    );
  },
  HINT,
);
