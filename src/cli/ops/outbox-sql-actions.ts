import { OutboxDuplicateRiskError, OutboxEventStateError } from '../../outbox/errors.js';
import { type PgQuery, postgresAudit } from './audit.js';

/** A `pg` pool, as the operator commands open it. */
export interface PgPool extends PgQuery {
  connect(): Promise<PgQuery & { release(destroy?: boolean): void }>;
}

/** The refusal of an action on an event the outbox does not hold. */
export const NOT_IN_OUTBOX = 'not in the outbox (delivered, discarded or never enqueued)';

export type OutboxAction = 'outbox.redeliver' | 'outbox.discard';

/** What an outbox action that was done says, whichever store it ran on. */
export const outboxActionDone = (action: OutboxAction, from: string): string =>
  action === 'outbox.discard' ? `discarded (was ${from})` : `back in its tenant's queue (was ${from})`;

/** The event an outbox action changed, as its audit entry records it. */
interface ActedOn {
  eventId: string;
  state: string;
  tenantId: string;
  eventType: string;
  lastError?: { code?: string } | null | undefined;
}

/** The audit entry of an outbox action, whichever store it ran on: `from` is the state it changed. */
export const outboxAuditEntry = (action: OutboxAction, actor: string, via: string, event: ActedOn) => ({
  actor,
  action,
  target: event.eventId,
  detail: {
    via,
    from: event.state,
    tenantId: event.tenantId,
    eventType: event.eventType,
    lastError: event.lastError?.code ?? null,
  },
});

/**
 * `outbox.redeliver` or `outbox.discard` of one event on a Postgres outbox and its audit row, in
 * ONE transaction, the row locked first (the audit's `from` is the state changed). The outbox's own
 * rules (`tenant-control.ts`): pending is refused (maybe in flight), expired needs the risk accepted.
 */
export async function postgresOutboxAction(
  pool: PgPool,
  quotedSchema: string,
  request: {
    action: OutboxAction;
    eventId: string;
    actor: string;
    via: string;
    acceptDuplicateRisk: boolean;
  },
): Promise<{ done: boolean; message: string }> {
  const { action, eventId } = request;
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    try {
      const { rows } = await client.query<ActedOn>(
        `SELECT event_id AS "eventId", state, tenant_id AS "tenantId", event_type AS "eventType",
  last_error AS "lastError" FROM ${quotedSchema}.outbox WHERE event_id = $1 AND state <> 'delivered' FOR UPDATE`,
        [eventId],
      );
      const event = rows[0];
      const refuse = async (message: string) => {
        await client.query('ROLLBACK');
        return { done: false, message };
      };
      if (!event) return await refuse(NOT_IN_OUTBOX);
      const verb = action === 'outbox.discard' ? 'discard' : 'redeliver';
      if (event.state === 'pending')
        return await refuse(
          `${new OutboxEventStateError(eventId, 'pending', verb).message} (maybe in flight): ${verb} acts on parked, dead or expired events`,
        );
      if (action === 'outbox.redeliver' && event.state === 'expired' && !request.acceptDuplicateRisk)
        return await refuse(new OutboxDuplicateRiskError(eventId).message);
      if (action === 'outbox.discard')
        await client.query(`DELETE FROM ${quotedSchema}.outbox WHERE event_id = $1`, [eventId]);
      else
        await client.query(
          `UPDATE ${quotedSchema}.outbox SET state = 'pending', due_at = '-infinity', claimed_by = NULL,
  claim_expires_at = NULL, first_attempt_at = CASE WHEN state = 'expired' THEN NULL ELSE first_attempt_at END
WHERE event_id = $1`,
          [eventId],
        );
      await postgresAudit(client, quotedSchema).record(
        outboxAuditEntry(action, request.actor, request.via, event),
      );
      await client.query('COMMIT');
      return { done: true, message: outboxActionDone(action, event.state) };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
