import { describe, expect, it } from 'vitest';
import { describeAppConformance, describeExampleRoute } from './support/app-conformance.js';
import { EDGE_EXAMPLE_PATH, EXAMPLE_PATH, type NextApp, nextApp } from './support/next-app.js';

// Next.js apps built with `next build` and served by `next start` (support/next-app.ts), one
// build per major and config, each serving the routes of test/apps/next-app and the package's own
// examples/next-app-router/route.ts:
// - Next.js 16 with create-next-app's defaults (cacheComponents on): App Router on the Node.js
//   runtime, pages/api. That config refuses any `runtime` export, so it has no edge route.
// - Next.js 16 with cacheComponents off, the config that allows the edge runtime (deprecated by
//   Next.js 16): the same, plus the App Router routes and the example with
//   `export const runtime = 'edge'`.
// - Next.js 15 with create-next-app's defaults (no cacheComponents): all of the above.
// On the edge, `next start` runs each edge route in one sandbox of its process, so the default
// in-memory inbox sees the redelivery here; on a platform that spreads deliveries over isolates it
// does not (the README says so): that cost is the platform's, not something a test on one
// machine can show.
const next16 = nextApp({
  name: 'next16',
  nextPackage: 'next',
  config: { cacheComponents: true },
  edge: false,
});
const next16Edge = nextApp({ name: 'next16-edge', nextPackage: 'next', config: {}, edge: true });
const next15 = nextApp({ name: 'next15', nextPackage: 'next15', config: {}, edge: true });

function describeNextApp(major: string, app: NextApp): void {
  describeAppConformance(`Next.js ${major} App Router (next build, next start, Node.js runtime)`, app.start, {
    expect: 'refused',
    framework: 'Next.js App Router',
    fix: /no request\.json\(\)/,
  });

  describeAppConformance(
    `Next.js ${major} pages/api (next build, next start)`,
    app.start,
    {
      expect: 'refused',
      framework: 'Next.js pages/api',
      fix: /bodyParser: false/,
      parserAnswersNonJson: 'Next.js answers 400 Invalid JSON before the route runs',
    },
    { webhook: '/api/pages/webhooks', parsed: '/api/parsed/webhooks' },
  );

  describeExampleRoute(
    `Next.js ${major} examples/next-app-router/route.ts (Node.js runtime)`,
    app.start,
    EXAMPLE_PATH,
  );
}

function describeNextEdge(major: string, app: NextApp): void {
  describeAppConformance(
    `Next.js ${major} App Router (next build, next start, edge runtime)`,
    app.start,
    { expect: 'refused', framework: 'Next.js App Router', fix: /no request\.json\(\)/ },
    { webhook: '/edge/loyalty/webhooks', parsed: '/edge/parsed/loyalty/webhooks' },
  );

  describeExampleRoute(
    `Next.js ${major} examples/next-app-router/route.ts plus \`export const runtime = 'edge'\``,
    app.start,
    EDGE_EXAMPLE_PATH,
  );
}

describeNextApp('16 (cacheComponents)', next16);
describeNextApp('16 (no cacheComponents)', next16Edge);
describeNextEdge('16 (no cacheComponents)', next16Edge);

/** A test that may run `next build` itself: as long as the hooks that otherwise do. */
const BUILD_MS = 300_000;

// What the README says the edge costs under Next.js 16, from Next.js itself.
describe('Next.js 16 and the edge runtime', () => {
  it(
    'next build warns that the edge runtime is deprecated',
    async () => {
      expect(await next16Edge.buildOutput()).toContain('The Edge Runtime is deprecated');
    },
    BUILD_MS,
  );

  it(
    "next build refuses `export const runtime` with create-next-app's defaults (cacheComponents)",
    async () => {
      const refused = nextApp({
        name: 'next16-edge-refused',
        nextPackage: 'next',
        config: { cacheComponents: true },
        edge: true,
      });
      await expect(refused.buildOutput()).rejects.toThrow(
        /Route segment config "runtime" is not compatible with `nextConfig\.cacheComponents`/,
      );
    },
    BUILD_MS,
  );
});

describeNextApp('15', next15);
describeNextEdge('15', next15);
