import { codedError } from '../../contract/errors.js';
import type { SharedStore } from '../../outbox/store.js';

/** What the operator commands use of an outbox store: `postgresStore`, or a file outbox (`--file`). */
export type OpsOutboxStore = Pick<
  SharedStore<unknown>,
  'get' | 'list' | 'counts' | 'countsByTenant' | 'update' | 'remove'
>;

/** A store that cannot be reached, read or opened now: exit 3, try again later. */
export class StoreUnavailable extends codedError('StoreUnavailable') {
  readonly code = 'STORE_UNAVAILABLE' as const;
}
