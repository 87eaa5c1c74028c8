import type { EntityKeyField } from '../contract/event-types.js';
import { EVENT_TYPES, type InboundEventType } from '../contract/index.js';

/**
 * The entity keys of one event, as `'<EntityType>:<id>'` strings (`'Customer:c-1'`,
 * `'Invoice:i-9'`), read from the catalogue's `changes`/`needs`. Sorted and without repeats, so a
 * store can keep them as they are (the Postgres store: two `text[]` columns).
 */
export interface CausalKeys {
  readonly changes: readonly string[];
  readonly needs: readonly string[];
}

/**
 * Which entities an event changes and needs, from the catalogue: the local queue and the shared
 * stores both order events by it. A key both changed and needed is listed under `changes` only.
 */
export function causalKeys(envelope: { readonly eventType: string; readonly payload: unknown }): CausalKeys {
  const info = EVENT_TYPES[envelope.eventType as InboundEventType] as
    | { changes?: readonly EntityKeyField[]; needs?: readonly EntityKeyField[]; singleEventType?: string }
    | undefined;
  if (!info) return { changes: [], needs: [] };
  const payload = envelope.payload as Record<string, unknown> | null;
  // A batch names its entities in its items.
  const sources: unknown[] =
    info.singleEventType !== undefined && Array.isArray(payload?.items) ? payload.items : [payload];
  const changes = keysOf(info.changes, sources);
  const needs = keysOf(info.needs, sources).filter((key) => !changes.includes(key));
  return { changes, needs };
}

/**
 * The keys of a tenant's earlier pending events, in `seq` order. A later event waits while one of
 * them changes a key it changes or needs, or needs a key it changes; two readers never wait.
 */
export class EarlierKeys {
  private readonly changes = new Set<string>();
  private readonly needs = new Set<string>();

  /** Must an event with these keys wait for one of the events added so far? */
  holdBack(keys: CausalKeys): boolean {
    return (
      keys.changes.some((key) => this.changes.has(key) || this.needs.has(key)) ||
      keys.needs.some((key) => this.changes.has(key))
    );
  }

  add(keys: CausalKeys): void {
    for (const key of keys.changes) this.changes.add(key);
    for (const key of keys.needs) this.needs.add(key);
  }
}

function keysOf(fields: readonly EntityKeyField[] | undefined, sources: readonly unknown[]): string[] {
  const keys = new Set<string>();
  for (const { entity, field } of fields ?? []) {
    for (const source of sources) {
      const id = (source as Record<string, unknown> | null)?.[field];
      if (typeof id === 'string' && id.length > 0) keys.add(`${entity}:${id}`);
    }
  }
  return [...keys].sort();
}
