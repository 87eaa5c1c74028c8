import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../../../fixtures/app-receiver';

// Built only where the config allows a `runtime` export (no cacheComponents): test/apps/next.test.ts.
export const runtime = 'edge';

const onWebhook = nextRouteHandler(appReceiver(), appAdapterOptions());

// The mistake the adapter must report: the route reads the body as JSON first.
export async function POST(request: Request): Promise<Response> {
  await request.json().catch(() => undefined);
  return onWebhook(request);
}
