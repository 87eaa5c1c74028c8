/**
 * `loyalty-partner-sdk/postgres`: the production stores on the user's own Postgres client (`pg`
 * or postgres.js). No driver is imported: the client is passed in and recognised by its shape.
 */
export type { PgClientLike, PgPoolLike, PostgresDb, PostgresJsLike } from './database.js';
export type { PostgresStoreErrorCode } from './errors.js';
export { PostgresStoreError } from './errors.js';
export type { PostgresTx, TransactionalInbox } from './inbox.js';
export { postgresInbox } from './inbox.js';
export type { PostgresInboxOptions } from './inbox-options.js';
export type { MigrateOptions, MigrateResult } from './migrate.js';
export { migrate } from './migrate.js';
export type { OutboxTransactionErrorCode } from './outbox-errors.js';
export { OutboxTransactionError } from './outbox-errors.js';
export type { PostgresStoreOptions } from './outbox-options.js';
export { postgresStore } from './outbox-store.js';
export type { PostgresOutboxTx } from './outbox-tx.js';
export type { PostgresRuleStoreOptions } from './rule-store.js';
export { postgresRuleStore } from './rule-store.js';
