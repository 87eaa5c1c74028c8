import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../fixtures/app-receiver';

export const POST = nextRouteHandler(appReceiver(), appAdapterOptions());
