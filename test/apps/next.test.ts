import { describeAppConformance, describeExampleRoute } from './support/app-conformance.js';
import { EDGE_EXAMPLE_PATH, EXAMPLE_PATH, type NextApp, nextApp } from './support/next-app.js';

// Next.js apps built with `next build` and served by `next start` (support/next-app.ts), one
// build per major and config, each serving the routes of test/apps/next-app and the package's own
// examples/next-app-router/route.ts:
// - Next.js 16 with create-next-app's defaults (cacheComponents on): App Router on the Node.js
//   runtime, pages/api. The config refuses any `runtime` export, so no edge route here.
// - Next.js 15 with create-next-app's defaults (no cacheComponents): the same, plus the same
//   routes with `export const runtime = 'edge'`, the runtime Next.js 16 deprecates.
const next16 = nextApp({
  name: 'next16',
  nextPackage: 'next',
  config: { cacheComponents: true },
  edge: false,
});
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

describeNextApp('16 (cacheComponents)', next16);
describeNextApp('15', next15);

describeAppConformance(
  'Next.js 15 App Router (next build, next start, edge runtime)',
  next15.start,
  { expect: 'refused', framework: 'Next.js App Router', fix: /no request\.json\(\)/ },
  { webhook: '/edge/loyalty/webhooks', parsed: '/edge/parsed/loyalty/webhooks' },
);

describeExampleRoute(
  "Next.js 15 examples/next-app-router/route.ts plus `export const runtime = 'edge'`",
  next15.start,
  EDGE_EXAMPLE_PATH,
);
