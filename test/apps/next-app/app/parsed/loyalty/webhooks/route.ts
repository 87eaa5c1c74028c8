import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../../fixtures/app-receiver';

const onWebhook = nextRouteHandler(appReceiver(), appAdapterOptions());

// The mistake the adapter must report: the route reads the body as JSON first.
export async function POST(request: Request): Promise<Response> {
  await request.json().catch(() => undefined);
  return onWebhook(request);
}
