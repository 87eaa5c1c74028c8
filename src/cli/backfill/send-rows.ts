import { LoyaltyApiError } from '../../client/errors.js';
import {
  createEnvelope,
  type ErrorCode,
  errorCodeInfo,
  type InboundEnvelope,
  type PayloadInput,
} from '../../contract/index.js';
import type { LoyaltyClient } from '../../platform-node/index.js';
import { describeSendError, type ErrorReport } from '../describe-error.js';
import type { OutgoingRow, RowFailure } from './rows.js';
import type { BackfillTarget } from './targets.js';

const PLANNED: ErrorCode = 'EVENT_HANDLER_NOT_REGISTERED';

/** Single events in flight at once while rows go one by one. */
const CONCURRENCY = 4;

export interface ChunkOutcome {
  sent: number;
  failures: RowFailure[];
  /** Why nothing more can be sent: the service unavailable, or the credentials refused. */
  stopped?: ErrorReport;
}

// Some failures are about the tenant or the service, not a row: every later row would get them.
function stopsEverything(err: unknown): ErrorReport | undefined {
  const report = describeSendError(err);
  if (!report) throw err;
  if (!(err instanceof LoyaltyApiError)) return report;
  return err.retryable || errorCodeInfo(err.code)?.tenantWide ? report : undefined;
}

/** Why a backfill stopped, without `send`'s advice: a resume sends each row under its own eventId. */
export const stopReason = (report: ErrorReport): string =>
  report.line.replace(/; send it again later with --event-id \S+$/, '');

/** A row that did not go out, under the eventId a resume sends it with. */
export const notSent = (row: OutgoingRow, report: ErrorReport): RowFailure => ({
  line: row.line,
  path: '',
  message: `not sent: ${stopReason(report)}`,
  eventId: row.eventId,
});

/** Whether the service handles the batch type yet: learnt as the backfill goes. */
export interface SendState {
  planned: boolean;
}

/**
 * Sends one chunk of rows as a batch event, or as single events under the rows' eventIds once the
 * batch type is Planned (remembered in `state`). A refused batch goes row by row to find the rows
 * at fault (syncs are upserts); a failure every row would share stops, each row not sent reported.
 */
export async function sendChunk(
  client: LoyaltyClient,
  target: BackfillTarget,
  rows: readonly OutgoingRow[],
  state: SendState,
  onSent: (count: number) => void,
): Promise<ChunkOutcome> {
  if (!state.planned) {
    try {
      const envelope = createEnvelope(target.batchType, {
        items: rows.map((row) => row.item),
      } as PayloadInput<typeof target.batchType>);
      await client.sendEnvelope(envelope as InboundEnvelope, { noRetryCodes: [PLANNED] });
      onSent(rows.length);
      return { sent: rows.length, failures: [] };
    } catch (err) {
      if (err instanceof LoyaltyApiError && err.code === PLANNED) {
        state.planned = true;
      } else {
        const report = stopsEverything(err);
        if (report) return { sent: 0, failures: rows.map((row) => notSent(row, report)), stopped: report };
      }
    }
  }
  // After a refused batch, one at a time: the rows at fault are found in the order of the file.
  return sendSingles(client, target, rows, onSent, state.planned ? CONCURRENCY : 1);
}

async function sendSingles(
  client: LoyaltyClient,
  target: BackfillTarget,
  rows: readonly OutgoingRow[],
  onSent: (count: number) => void,
  concurrency: number,
): Promise<ChunkOutcome> {
  const outcome: ChunkOutcome = { sent: 0, failures: [] };
  const done = new Set<OutgoingRow>();
  let next = 0;
  const worker = async () => {
    while (!outcome.stopped && next < rows.length) {
      const row = rows[next++] as OutgoingRow;
      try {
        await client.send(target.singleType, row.item as PayloadInput<typeof target.singleType>, {
          eventId: row.eventId,
        });
        done.add(row);
        outcome.sent += 1;
        onSent(outcome.sent);
      } catch (err) {
        const report = stopsEverything(err);
        if (report) {
          outcome.stopped ??= report;
          continue;
        }
        done.add(row);
        outcome.failures.push({
          line: row.line,
          path: '',
          message: describeSendError(err)?.line ?? String(err),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  const stopped = outcome.stopped;
  if (stopped) for (const row of rows) if (!done.has(row)) outcome.failures.push(notSent(row, stopped));
  return outcome;
}
