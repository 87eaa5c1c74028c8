import { pagesApiHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../fixtures/app-receiver';

export const config = { api: { bodyParser: false } };
export default pagesApiHandler(appReceiver(), appAdapterOptions());
