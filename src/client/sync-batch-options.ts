import type { BatchEventType } from '../contract/event-types.js';
import type { PayloadInput } from '../contract/schemas/envelope.js';
import type { SendResult } from './send-types.js';

/** One item of a batch type: the single-entity shape (`Customer` for `CustomersSyncedBatch`). */
export type BatchItem<T extends BatchEventType> = PayloadInput<T> extends { items: (infer I)[] } ? I : never;

/** Progress of `syncBatch`, reported after every accepted event. */
export interface SyncBatchProgress {
  sentItems: number;
  totalItems: number;
  /** Index of the chunk of at most 500 items the event belonged to. */
  chunk: number;
  mode: 'batch' | 'single';
}

/** Options of `client.syncBatch()`. */
export interface SyncBatchOptions {
  /** Called after every accepted event; what it throws is ignored. */
  onProgress?: (progress: SyncBatchProgress) => void;
  /**
   * While the batch type is Planned (`503 EVENT_HANDLER_NOT_REGISTERED`), send the items as
   * single-entity events instead (`CustomerSynced` for `CustomersSyncedBatch`).
   * @default true
   */
  fallbackToSingle?: boolean;
  /**
   * Single-entity events in flight at once during a fallback.
   * @default 4
   */
  concurrency?: number;
  /** Cancels the sync; rejects with `signal.reason`. */
  signal?: AbortSignal;
}

/** How one chunk of at most 500 items went out. */
export interface SyncBatchChunkResult {
  chunk: number;
  items: number;
  mode: 'batch' | 'single';
  /** One result for a batch event, one per item for single events. */
  results: SendResult[];
}

/** What `syncBatch` did. */
export interface SyncBatchSummary {
  batchType: BatchEventType;
  items: number;
  /** Chunks accepted as batch events. */
  batches: number;
  /** Chunks sent as single-entity events because the batch type is not handled yet. */
  fallbacks: number;
  chunks: SyncBatchChunkResult[];
}

/** Every `syncBatch` default, declared once (the options' `@default` tags repeat them). */
export const SYNC_BATCH_DEFAULTS = { fallbackToSingle: true, concurrency: 4 } as const satisfies Required<
  Pick<SyncBatchOptions, 'fallbackToSingle' | 'concurrency'>
>;
