/**
 * The contract's numbers that several parts of the package read, declared once (the batch limit,
 * `MAX_BATCH_ITEMS`, lives beside the batch schemas it bounds).
 */

/** The service replays the answer to an `eventId` for 24 hours (spec section 8): the dedup window. */
export const DEDUP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Retries stop this long before the dedup window closes: clocks and queues are not exact. */
export const DEDUP_WINDOW_MARGIN_MS = 60 * 60 * 1000;

/** The latest a retry may start after the first attempt of an `eventId`: 23 hours. */
export const RETRY_WINDOW_MS = DEDUP_WINDOW_MS - DEDUP_WINDOW_MARGIN_MS;

/** {@link RETRY_WINDOW_MS} in whole hours (23), for messages. */
export const RETRY_WINDOW_HOURS = RETRY_WINDOW_MS / 3_600_000;

export { SIGNATURE_TOLERANCE_SECONDS } from './tolerance.js';
