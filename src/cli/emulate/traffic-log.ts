import { errorCodeInfo } from '../../contract/index.js';
import type { Emulator } from '../../testing/index.js';
import type { LedgerEntry } from '../../testing/merchant.js';
import type { RequestRecord } from '../../testing/request-log.js';
import type { Delivery, DeliveryAttempt } from '../../testing/webhook-dispatcher.js';
import { plural, type Style } from '../io.js';

/** One line per request the emulator answered and per webhook attempt it made, in order. */
export interface TrafficLog {
  /** Writes every line not written yet; call it on a timer and once more before exiting. */
  flush(): void;
}

const time = (at: number) => new Date(at).toISOString().slice(11, 23);

// A request is logged once its answer is known; a dropped or hung one (a fault) has none.
const settled = (r: RequestRecord) => r.status !== null || r.outcome === 'fault';

const amount = (n: number, unit: string) => plural(Math.abs(n), unit);

const EFFECT: Record<LedgerEntry['kind'], readonly [string, string]> = {
  earn: ['credited', 'to'],
  reversal: ['reversed', 'from'],
  redemption: ['redeemed', 'from'],
  'redemption-release': ['released', 'to'],
};

/** What the service did to balances for one event: `credited 8 points to cust-1001 (balance now 8 points)`. */
function effectOf(entries: readonly LedgerEntry[], emulator: Emulator, tenantId: string): string {
  return entries
    .map((entry) => {
      const balance = emulator.balance(tenantId, entry.externalCustomerId);
      const [change, unit, now] =
        entry.stamps !== 0
          ? [
              entry.stamps,
              'stamp',
              `${amount(balance.stamps[entry.stampCardId ?? ''] ?? 0, 'stamp')} on ${entry.stampCardId}`,
            ]
          : [entry.points, 'point', amount(balance.points, 'point')];
      const [verb, direction] = EFFECT[entry.kind];
      return `${verb} ${amount(change, unit)} ${direction} ${entry.externalCustomerId} (balance now ${now})`;
    })
    .join('; ');
}

/** Why the service refused: the contract's words for the code. */
function refusalOf(r: RequestRecord): string | undefined {
  if (r.status === null || r.status < 400 || r.code === null) return undefined;
  const info = errorCodeInfo(r.code);
  return info ? `(${info.condition})` : undefined;
}

function requestLine(r: RequestRecord, style: Style, effect?: string): string {
  const answer = r.status === null ? 'no answer' : `${r.status} ${r.outcome}`;
  const ok = r.status !== null && r.status < 300;
  const paint = ok ? style.green : r.outcome === 'fault' ? style.yellow : style.red;
  const parts = [
    style.dim(time(r.at)),
    `${r.method} ${r.path}`,
    paint(answer),
    r.code,
    refusalOf(r),
    r.fault && r.fault !== r.code && `(fault: ${r.fault})`,
    r.eventType,
    r.eventId && `eventId ${r.eventId}`,
    r.tenantId && `tenant ${r.tenantId}`,
    `correlationId ${r.correlationId}`,
    effect && `: ${effect}`,
  ];
  return parts.filter(Boolean).join(' ').replace(' : ', ': ');
}

function attemptLine(d: Delivery, a: DeliveryAttempt, style: Style): string {
  const answer = a.error ?? (a.status === null ? 'no answer' : String(a.status));
  const paint = a.verdict === 'delivered' ? style.green : a.verdict === 'retry' ? style.yellow : style.red;
  const next = d.nextAttemptAt !== null && a.verdict === 'retry' ? `, next at ${time(d.nextAttemptAt)}` : '';
  const parts = [
    style.dim(time(a.at)),
    `webhook ${d.eventType} -> ${d.url ?? '?'}`,
    `attempt ${a.number}:`,
    paint(`${answer} ${a.verdict}${next}`),
    a.code,
    `eventId ${d.eventId}`,
    `tenant ${d.tenantId}`,
  ];
  return parts.filter(Boolean).join(' ');
}

function queuedLine(d: Delivery, style: Style, emulator: Emulator): string {
  // True to the merchant's settings: a receiver URL set waits only for the first signed event.
  const until = emulator.merchant(d.tenantId).receiverUrl
    ? 'until the first signed event proves the credentials'
    : 'until the merchant has a receiver URL (emulate --receiver-url) and a first signed event';
  return [
    style.dim(time(d.createdAt)),
    `webhook ${d.eventType} queued ${until}`,
    `eventId ${d.eventId}`,
    `tenant ${d.tenantId}`,
  ].join(' ');
}

const ended = (d: Delivery) => d.status === 'delivered' || d.status === 'rejected' || d.status === 'failed';

/**
 * Follows the emulator's inspection API from the last record seen, so a flush costs the same after a
 * million requests as after ten. No secret or signature is in what it reads.
 */
export function createTrafficLog(
  emulator: Emulator,
  write: (line: string) => void,
  style: Style,
): TrafficLog {
  // Lines are written in log order; a request still unanswered (a hang) holds back the rest.
  let written = 0;
  let produced = 0;
  // The deliveries seen not ended yet, with how many of their attempts were written.
  const underWay = new Map<string, number>();
  const follow = (delivery: Delivery, seen: number | undefined) => {
    if (seen === undefined && delivery.status === 'queued') write(queuedLine(delivery, style, emulator));
    for (const attempt of delivery.attempts.slice(seen ?? 0)) write(attemptLine(delivery, attempt, style));
    if (ended(delivery)) underWay.delete(delivery.deliveryId);
    else underWay.set(delivery.deliveryId, delivery.attempts.length);
  };
  return {
    flush() {
      // The ledger is read once per flush, and only when an event was processed since the last.
      const ledgers = new Map<string, Map<string, LedgerEntry[]>>();
      const effect = (record: RequestRecord): string | undefined => {
        if (record.outcome !== 'processed' || !record.tenantId || !record.eventId) return undefined;
        let byEvent = ledgers.get(record.tenantId);
        if (!byEvent) {
          byEvent = new Map();
          for (const entry of emulator.ledger(record.tenantId))
            if (entry.eventId) byEvent.set(entry.eventId, [...(byEvent.get(entry.eventId) ?? []), entry]);
          ledgers.set(record.tenantId, byEvent);
        }
        const entries = byEvent.get(record.eventId);
        return entries ? effectOf(entries, emulator, record.tenantId) : undefined;
      };
      for (const record of emulator.requests({ after: written })) {
        if (!settled(record)) break;
        written = record.seq;
        write(requestLine(record, style, effect(record)));
      }
      // Older ones first, in the order they were produced; one the emulator forgot (historyLimit) is dropped.
      for (const [deliveryId, seen] of underWay) {
        const [delivery] = emulator.deliveries({ deliveryId });
        if (delivery) follow(delivery, seen);
        else underWay.delete(deliveryId);
      }
      for (const delivery of emulator.deliveries({ after: produced })) {
        produced = Number(delivery.deliveryId.slice('dlv-'.length));
        follow(delivery, undefined);
      }
    },
  };
}
