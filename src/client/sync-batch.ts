import { callHook } from '../contract/call-hook.js';
import type { ErrorCode } from '../contract/error-codes.js';
import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { type BatchEventType, EVENT_TYPES, type InboundEventType } from '../contract/event-types.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import {
  functionOrAbsent,
  oneOf,
  optionIssues,
  throwIfInvalid,
  wholeNumber,
} from '../contract/options-check.js';
import { MAX_BATCH_ITEMS } from '../contract/schemas/inbound-payloads.js';
import { assertInboundEventType, parsePayload } from '../contract/validate.js';
import { LoyaltyApiError } from './errors.js';
import type { SendResult } from './send-types.js';
import { SYNC_BATCH_DEFAULTS, type SyncBatchOptions, type SyncBatchSummary } from './sync-batch-options.js';

const PLANNED: ErrorCode = 'EVENT_HANDLER_NOT_REGISTERED';

/** How `syncBatch` reaches the client: already validated payloads, one event each. */
export interface BatchSender {
  send(
    eventType: InboundEventType,
    payload: unknown,
    noRetryCodes: ReadonlySet<string> | undefined,
    signal?: AbortSignal,
  ): Promise<SendResult>;
}

function validateItems(batchType: BatchEventType, single: InboundEventType, items: unknown): unknown[] {
  const invalid = (summary: string, issues: ValidationIssue[]) =>
    new LoyaltyValidationError('INVALID_PAYLOAD', summary, issues, { eventType: batchType });
  if (!Array.isArray(items)) {
    throw invalid(`Invalid ${batchType} items`, [{ path: 'items', message: 'must be an array' }]);
  }
  const issues: ValidationIssue[] = [];
  const parsed = items.map((item, i) => {
    try {
      return parsePayload(single, item);
    } catch (err) {
      if (!(err instanceof LoyaltyValidationError)) throw err;
      for (const issue of err.issues)
        issues.push({ path: issue.path.replace(/^payload/, `items.${i}`), message: issue.message });
      return undefined;
    }
  });
  if (issues.length) throw invalid(`Invalid ${batchType} items, nothing was sent`, issues);
  return parsed;
}

async function sendSingles(
  sender: BatchSender,
  type: InboundEventType,
  items: unknown[],
  concurrency: number,
  signal: AbortSignal | undefined,
  onSent: (r: SendResult) => void,
): Promise<SendResult[]> {
  const results: SendResult[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await sender.send(type, items[i], undefined, signal);
        onSent(results[i]);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, items.length) }, worker),
  );
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}

/**
 * `client.syncBatch()`: validates every item first, then sends chunks of `MAX_BATCH_ITEMS`, one
 * after the other. The first failure ends the sync (after the single events in flight settle);
 * sync events are upserts, so running it again is safe.
 */
export async function runSyncBatch(
  sender: BatchSender,
  batchType: BatchEventType,
  items: unknown,
  options: SyncBatchOptions = {},
): Promise<SyncBatchSummary> {
  assertInboundEventType(batchType);
  const single = (EVENT_TYPES[batchType] as { singleEventType?: InboundEventType }).singleEventType;
  if (!single) {
    throw new LoyaltyValidationError(
      'INVALID_REQUEST',
      `syncBatch takes a batch event type (…SyncedBatch), not ${batchType}`,
      [],
      { eventType: batchType },
    );
  }
  const parsed = validateItems(batchType, single, items);
  const { fallbackToSingle, concurrency } = mergeDefaults<
    Pick<SyncBatchOptions, 'fallbackToSingle' | 'concurrency'>
  >(SYNC_BATCH_DEFAULTS, { fallbackToSingle: options.fallbackToSingle, concurrency: options.concurrency });
  const issues = optionIssues([
    wholeNumber('concurrency', concurrency, 1),
    oneOf('fallbackToSingle', fallbackToSingle, [true, false]),
    functionOrAbsent('onProgress', options.onProgress),
  ]);
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_REQUEST', 'Invalid syncBatch options', all),
  );
  const summary: SyncBatchSummary = { batchType, items: parsed.length, batches: 0, fallbacks: 0, chunks: [] };
  const noRetry = fallbackToSingle ? new Set<string>([PLANNED]) : undefined;
  let planned = false;
  let sentItems = 0;
  const progress = (chunk: number, mode: 'batch' | 'single', count: number) => {
    sentItems += count;
    callHook(options.onProgress, { sentItems, totalItems: parsed.length, chunk, mode });
  };
  for (let start = 0, chunk = 0; start < parsed.length; start += MAX_BATCH_ITEMS, chunk++) {
    const slice = parsed.slice(start, start + MAX_BATCH_ITEMS);
    if (!planned) {
      try {
        const result = await sender.send(batchType, { items: slice }, noRetry, options.signal);
        summary.batches += 1;
        summary.chunks.push({ chunk, items: slice.length, mode: 'batch', results: [result] });
        progress(chunk, 'batch', slice.length);
        continue;
      } catch (err) {
        if (!(fallbackToSingle && err instanceof LoyaltyApiError && err.code === PLANNED)) throw err;
        planned = true;
      }
    }
    const results = await sendSingles(sender, single, slice, concurrency, options.signal, () =>
      progress(chunk, 'single', 1),
    );
    summary.fallbacks += 1;
    summary.chunks.push({ chunk, items: slice.length, mode: 'single', results });
  }
  return summary;
}
