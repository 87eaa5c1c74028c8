import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../../fixtures/app-receiver';

// Built only where the config allows a `runtime` export (no cacheComponents): test/apps/next.test.ts.
export const runtime = 'edge';

export const POST = nextRouteHandler(appReceiver(), appAdapterOptions());
