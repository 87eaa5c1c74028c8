import { OutboxClosedError, OutboxStoreError } from './errors.js';
import { EventTable, type JournalRecord } from './event-table.js';
import { encodeBody, recordBytes } from './journal-codec.js';
import type { EventPatch, LocalStore, StoredEvent, StoredTenantStop, StoreSnapshot } from './store.js';
import { normalizeStoreOptions, type StoreLimits } from './store-options.js';

/**
 * A store that keeps everything in memory: the same interface, records and limits as `fileStore`
 * (an event costs the bytes of its journal record), with nothing durable. For tests, demos and
 * processes that accept losing queued events on exit. Closing and opening it again gives back
 * what it held, which lets a test play a restart.
 *
 * @example
 * ```ts
 * import { memoryStore } from 'loyalty-partner-sdk/outbox';
 * const store = memoryStore({ maxEvents: 100 });
 * ```
 */
export function memoryStore(options: StoreLimits = {}): LocalStore {
  return new MemoryStore(new EventTable(normalizeStoreOptions(options)));
}

class MemoryStore implements LocalStore {
  readonly kind = 'local';
  private state: 'new' | 'open' | 'closed' = 'new';

  constructor(private readonly table: EventTable) {}

  async open(): Promise<StoreSnapshot> {
    if (this.state === 'open') throw new OutboxStoreError('The memory store is open already');
    this.state = 'open';
    return this.table.snapshot();
  }

  async append(event: StoredEvent): Promise<void> {
    const record: JournalRecord = { op: 'put', event };
    const size = recordBytes(encodeBody(record), false);
    this.check();
    this.table.reserve(size);
    this.table.release(size);
    this.apply(record, size);
  }

  async update(eventId: string, patch: EventPatch): Promise<void> {
    this.apply({ op: 'patch', id: eventId, patch });
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    this.check();
    for (const id of eventIds) this.apply({ op: 'del', id });
  }

  async setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void> {
    this.apply({ op: 'tenant', id: tenantId, stop });
  }

  async close(): Promise<void> {
    this.state = 'closed';
  }

  private check(): void {
    if (this.state === 'closed') throw new OutboxClosedError();
    if (this.state === 'new') throw new OutboxStoreError('The store is not open (outbox.start() opens it)');
  }

  private apply(record: JournalRecord, size = 0): void {
    this.check();
    // A copy, so a caller that mutates its object later cannot change what the store holds.
    this.table.apply(structuredClone(record), size);
  }
}
