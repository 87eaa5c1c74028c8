import { randomUUID } from 'node:crypto';
import { BoundedList } from './bounded-list.js';
import type { FaultEndpoint, FaultKind } from './faults.js';

/** Which endpoint a request reached. */
export type Endpoint = FaultEndpoint | 'planned' | 'unknown';

/** One request the emulator answered (or dropped), as the inspection API shows it. */
export interface RequestRecord {
  /**
   * Position in the log since the emulator started, from 1. Stays unique once older records are
   * forgotten (`historyLimit`), so a reader can ask for what came after the last one it saw.
   */
  seq: number;
  /** Emulator clock time (skew not included, as for delivery attempts), epoch milliseconds. */
  at: number;
  method: string;
  path: string;
  endpoint: Endpoint;
  tenantId: string | null;
  eventId: string | null;
  eventType: string | null;
  /** The HTTP status answered; `null` when a fault dropped the connection or never answered. */
  status: number | null;
  code: string | null;
  outcome: 'processed' | 'replayed' | 'rejected' | 'fault';
  fault: FaultKind | null;
  correlationId: string;
}

/** The newest `limit` records by `seq`, filled in by the router as it answers; readers get copies. */
export class RequestLog {
  readonly #records: BoundedList<RequestRecord>;

  constructor(limit: number) {
    this.#records = new BoundedList(limit);
  }

  /** The seq of the newest record, 0 before the first. */
  get lastSeq(): number {
    return this.#records.pushed;
  }

  /** Starts the record of a request; without a correlation id of its own, it gets a new one. */
  open(
    start: Pick<RequestRecord, 'at' | 'method' | 'path' | 'endpoint'> & { correlationId: string | null },
  ): RequestRecord {
    const entry: RequestRecord = {
      seq: this.#records.pushed + 1,
      at: start.at,
      method: start.method,
      path: start.path,
      endpoint: start.endpoint,
      tenantId: null,
      eventId: null,
      eventType: null,
      status: null,
      code: null,
      outcome: 'rejected',
      fault: null,
      correlationId: start.correlationId ?? randomUUID(),
    };
    this.#records.push(entry);
    return entry;
  }

  /** Copies of the records after `seq` still kept, oldest first. */
  after(seq = 0): RequestRecord[] {
    return this.#records.newest(this.lastSeq - seq).map((record) => ({ ...record }));
  }
}
