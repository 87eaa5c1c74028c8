/**
 * `loyalty-partner-sdk/postgres`: the production stores on the user's own Postgres client (`pg`
 * or postgres.js). No driver is imported: the client is passed in and recognised by its shape.
 *
 * @module loyalty-partner-sdk/postgres
 */
export type { PostgresDb } from './database.js';
export { OutboxTransactionError, PostgresStoreError } from './errors.js';
export type { PostgresTx } from './inbox.js';
export { postgresInbox } from './inbox.js';
export { migrate } from './migrate.js';
export { postgresStore } from './outbox-store.js';
export type { PostgresOutboxTx } from './outbox-tx.js';
export { postgresRuleStore } from './rule-store.js';
