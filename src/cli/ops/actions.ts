import { LoyaltyError } from '../../contract/index.js';
import type { SharedStore } from '../../outbox/store.js';
import { redeliver } from '../../outbox/tenant-control.js';
import type { OpsBackends } from './connect.js';
import {
  NOT_IN_OUTBOX,
  outboxActionDone,
  outboxAuditEntry,
  postgresOutboxAction,
} from './outbox-sql-actions.js';

/** What an operator can do to one event, from the CLI or the dashboard. */
export const ACTION_NAMES = ['outbox.redeliver', 'outbox.discard', 'inbox.replay', 'inbox.discard'] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

/** How one action on one event ended: `done`, or why not. */
export interface ActionResult {
  readonly eventId: string;
  readonly action: ActionName;
  readonly done: boolean;
  readonly message: string;
}

/** Who acts and from where, written to the audit trail with every action done. */
export interface ActionContext {
  readonly actor: string;
  readonly via: 'cli' | 'dashboard';
  readonly acceptDuplicateRisk?: boolean | undefined;
}

/**
 * Does `action` to one event and records it in the audit trail, both or neither (one transaction or
 * Redis script). A refusal (unknown id, wrong state) is a result; a store failure rejects, nothing done.
 */
export async function runAction(
  backends: OpsBackends,
  action: ActionName,
  eventId: string,
  context: ActionContext,
): Promise<ActionResult> {
  const result = (done: boolean, message: string): ActionResult => ({ eventId, action, done, message });
  const side = action.startsWith('outbox.') ? backends.outbox : backends.inbox;
  if (!side) return result(false, `no ${action.split('.')[0]} store is connected`);

  if (backends.outbox && (action === 'outbox.redeliver' || action === 'outbox.discard')) {
    const { store, sql } = backends.outbox;
    if (sql) {
      const outcome = await postgresOutboxAction(sql.pool, sql.quotedSchema, {
        action,
        eventId,
        actor: context.actor,
        via: context.via,
        acceptDuplicateRisk: context.acceptDuplicateRisk === true,
      });
      return result(outcome.done, outcome.message);
    }
    // A file outbox (its process stopped, the CLI holds its lock): the action, then its audit line.
    const event = await store.get(eventId);
    if (!event) return result(false, NOT_IN_OUTBOX);
    if (action === 'outbox.discard') {
      // A pending event may be in flight in a running outbox: only settled ones are discarded here.
      if (event.state === 'pending')
        return result(
          false,
          'it is pending (maybe in flight): discard acts on parked, dead or expired events',
        );
      await store.remove([eventId]);
    } else {
      try {
        // The outbox's own rule (pending refused, expired only with the risk accepted); it writes
        // with `update` alone, which every operator store has.
        await redeliver(store as SharedStore<unknown>, event, {
          acceptDuplicateRisk: context.acceptDuplicateRisk === true,
        });
      } catch (err) {
        if (err instanceof LoyaltyError) return result(false, err.message);
        throw err;
      }
    }
    await backends.outbox.audit.record(
      outboxAuditEntry(action, context.actor, context.via, { ...event, eventType: event.envelope.eventType }),
    );
    return result(true, outboxActionDone(action, event.state));
  }

  // The store writes the audit entry (the state it came `from`) in the action's own transaction or script.
  const store = backends.inbox!.store;
  const audit = { actor: context.actor, detail: { via: context.via } };
  if (action === 'inbox.replay') {
    if (!(await store.replay(eventId, audit)))
      return result(false, 'not stored, stored without its body, or pending already');
    return result(true, 'pending again: a running receiver handles it');
  }
  if (!(await store.discard(eventId, audit)))
    return result(false, 'not stored, handled already, or its handler is running now');
  return result(true, 'discarded: marked handled without running its handler');
}
