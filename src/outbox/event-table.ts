import { OutboxFullError } from './errors.js';
import type { EventPatch, StoredEvent, StoredTenantStop, StoreSnapshot } from './store.js';
import type { StoreLimits } from './store-options.js';

/** One change of a store, as the journal writes it and as both stores apply it. */
export type JournalRecord =
  | { readonly op: 'put'; readonly event: StoredEvent }
  | { readonly op: 'patch'; readonly id: string; readonly patch: EventPatch }
  | { readonly op: 'del'; readonly id: string }
  | { readonly op: 'tenant'; readonly id: string; readonly stop: StoredTenantStop | null };

interface Row {
  event: StoredEvent;
  /** Size of the record that brought the event in; what `maxBytes` counts. */
  bytes: number;
}

/**
 * The live content of a store, rebuilt from its records: both stores apply the same records the
 * same way (limits included). Applying a record twice does what once does.
 */
export class EventTable {
  private readonly rows = new Map<string, Row>();
  private readonly stops = new Map<string, StoredTenantStop>();
  private liveBytes = 0;
  private reservedEvents = 0;
  private reservedBytes = 0;

  constructor(private readonly limits: Required<StoreLimits>) {}

  get size(): number {
    return this.rows.size;
  }

  get bytes(): number {
    return this.liveBytes;
  }

  /** Claims room for a new event before it is written, so concurrent appends cannot overshoot. */
  reserve(bytes: number): void {
    if (this.rows.size + this.reservedEvents >= this.limits.maxEvents) {
      throw new OutboxFullError('maxEvents', this.limits.maxEvents);
    }
    if (this.liveBytes + this.reservedBytes + bytes > this.limits.maxBytes) {
      throw new OutboxFullError('maxBytes', this.limits.maxBytes);
    }
    this.reservedEvents += 1;
    this.reservedBytes += bytes;
  }

  release(bytes: number): void {
    this.reservedEvents -= 1;
    this.reservedBytes -= bytes;
  }

  apply(record: JournalRecord, size: number): void {
    switch (record.op) {
      case 'put': {
        this.delete(record.event.eventId);
        this.rows.set(record.event.eventId, { event: record.event, bytes: size });
        this.liveBytes += size;
        return;
      }
      case 'patch': {
        const row = this.rows.get(record.id);
        if (row) row.event = { ...row.event, ...record.patch };
        return;
      }
      case 'del':
        this.delete(record.id);
        return;
      case 'tenant':
        if (record.stop) this.stops.set(record.id, record.stop);
        else this.stops.delete(record.id);
        return;
    }
  }

  /** The records that rebuild the current content from nothing: what compaction writes. */
  liveRecords(): JournalRecord[] {
    const records: JournalRecord[] = this.sortedEvents().map((event) => ({ op: 'put', event }));
    for (const stop of this.stops.values()) records.push({ op: 'tenant', id: stop.tenantId, stop });
    return records;
  }

  snapshot(): StoreSnapshot {
    return { events: this.sortedEvents(), stoppedTenants: [...this.stops.values()] };
  }

  private sortedEvents(): StoredEvent[] {
    return [...this.rows.values()].map((row) => row.event).sort((a, b) => a.seq - b.seq);
  }

  private delete(id: string): void {
    const row = this.rows.get(id);
    if (!row) return;
    this.liveBytes -= row.bytes;
    this.rows.delete(id);
  }
}
