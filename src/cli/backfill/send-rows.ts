import { LoyaltyApiError } from '../../client/errors.js';
import { errorCodeInfo, MAX_BATCH_ITEMS, type PayloadInput } from '../../contract/index.js';
import type { LoyaltyClient } from '../../platform-node/client.js';
import { describeSendError, type ErrorReport } from '../describe-error.js';
import type { RowFailure, ValidRow } from './rows.js';
import type { BackfillTarget } from './targets.js';

/** What sending the valid rows did. */
export interface SendOutcome {
  sent: number;
  failures: RowFailure[];
  /** `true` when the batch type is not handled yet (Planned) and rows went as single events. */
  fallback: boolean;
  /** Why the backfill stopped before the end: the service unavailable, or the credentials refused. */
  stopped?: ErrorReport;
}

// Some failures are about the tenant or the service, not a row: every later row would get them.
function stopsEverything(err: unknown): ErrorReport | undefined {
  const report = describeSendError(err);
  if (!report) throw err;
  if (!(err instanceof LoyaltyApiError)) return report;
  return err.retryable || errorCodeInfo(err.code)?.tenantWide ? report : undefined;
}

/**
 * Sends the rows through `client.syncBatch`, one call per `MAX_BATCH_ITEMS` rows, with its
 * single-event fallback while the batch type is Planned. When the service refuses a chunk, its
 * rows are sent again one by one to find the rows at fault (sync events are upserts, so a row
 * sent twice changes nothing). A failure that every row would share ends the backfill.
 */
export async function sendRows(
  client: LoyaltyClient,
  target: BackfillTarget,
  rows: readonly ValidRow[],
  onSent: (sent: number) => void,
): Promise<SendOutcome> {
  const outcome: SendOutcome = { sent: 0, failures: [], fallback: false };
  const stop = (report: ErrorReport, from: number) => {
    outcome.stopped = report;
    for (const row of rows.slice(from)) {
      outcome.failures.push({ line: row.line, path: '', message: `not sent: ${report.line}` });
    }
  };
  for (let start = 0; start < rows.length; start += MAX_BATCH_ITEMS) {
    const chunk = rows.slice(start, start + MAX_BATCH_ITEMS);
    const base = outcome.sent;
    try {
      const summary = await client.syncBatch(
        target.batchType,
        chunk.map((row) => row.item) as PayloadInput<typeof target.batchType>['items'],
        { fallbackToSingle: true, onProgress: ({ sentItems }) => onSent(base + sentItems) },
      );
      outcome.sent += chunk.length;
      if (summary.fallbacks > 0) outcome.fallback = true;
      continue;
    } catch (err) {
      const report = stopsEverything(err);
      if (report) {
        stop(report, start);
        return outcome;
      }
    }
    for (const [offset, row] of chunk.entries()) {
      try {
        await client.send(target.singleType, row.item as PayloadInput<typeof target.singleType>);
        outcome.sent += 1;
        onSent(outcome.sent);
      } catch (err) {
        const report = stopsEverything(err);
        if (report) {
          stop(report, start + offset);
          return outcome;
        }
        const refused = describeSendError(err);
        outcome.failures.push({ line: row.line, path: '', message: refused?.line ?? String(err) });
      }
    }
  }
  return outcome;
}
