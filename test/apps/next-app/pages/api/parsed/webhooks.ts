import { pagesApiHandler } from 'loyalty-partner-sdk/next';
import { appAdapterOptions, appReceiver } from '../../../fixtures/app-receiver';

// The mistake the adapter must report: Next's body parser left on.
export default pagesApiHandler(appReceiver(), appAdapterOptions());
