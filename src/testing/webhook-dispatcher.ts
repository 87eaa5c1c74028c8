import type { OutboundEnvelope, OutboundEventType } from '../contract/index.js';
import { signPayload } from '../platform-node/signature.js';
import type { EmulatorClock } from './clock.js';
import { type AttemptVerdict, judgeAnswer, WEBHOOK_RETRY_LADDER_MS } from './delivery-ladder.js';
import { matches } from './matches.js';
import { codeOf, readAnswer } from './receiver-exchange.js';

/**
 * Where a delivery stands (spec 3.2): `queued` until the merchant's integration is active and a
 * receiver URL is known, `pending` while an attempt is under way, then `retry-scheduled`,
 * `delivered`, `rejected` (a 4xx that is not retried) or `failed` (the ladder is exhausted).
 */
export type DeliveryStatus = 'queued' | 'pending' | 'retry-scheduled' | 'delivered' | 'rejected' | 'failed';

/** One attempt of a delivery. */
export interface DeliveryAttempt {
  /** 1 to 6. */
  number: number;
  /** When it started: emulator clock time (skew not included), epoch milliseconds. */
  at: number;
  /** The receiver's HTTP status; `null` after a timeout or a network failure. */
  status: number | null;
  /** The `code` of the receiver's error envelope, if it sent one. */
  code: string | null;
  error: 'timeout' | 'network' | null;
  verdict: AttemptVerdict;
}

/** One outbound event on its way to the partner's receiver. Holds no secret and no signature. */
export interface Delivery {
  deliveryId: string;
  tenantId: string;
  eventType: OutboundEventType;
  eventId: string;
  correlationId: string;
  envelope: OutboundEnvelope;
  status: DeliveryStatus;
  /** The receiver URL of the latest attempt. */
  url: string | null;
  attempts: DeliveryAttempt[];
  createdAt: number;
  /** When the next attempt is due, while `retry-scheduled`. */
  nextAttemptAt: number | null;
}

/** Filters of `emulator.deliveries()`. */
export interface DeliveryFilter {
  /**
   * Only the deliveries produced after the n-th (`deliveryId` is `dlv-<n>`): what a reader
   * following them has not seen yet.
   */
  after?: number;
  /** Only this delivery (found without a scan). */
  deliveryId?: string;
  tenantId?: string;
  eventType?: string;
  status?: DeliveryStatus;
}

export interface DispatcherDeps {
  clock: EmulatorClock;
  /** The service's time, skew included: the `t=` of every signature. */
  serviceNow: () => number;
  fetch: typeof fetch;
  timeoutMs: number;
  /** How many deliveries in an end state are kept (the newest); waiting ones are always kept. */
  historyLimit: number;
  /** The receiver and the active secrets, or `undefined` while deliveries must stay queued. */
  target: (tenantId: string) => { url: string; secrets: readonly string[] } | undefined;
}

// Beside the public record: the bytes sent, and the n of `dlv-<n>` to search by.
type Kept = Delivery & { body: string; seq: number };

const publicCopy = ({ body: _body, seq: _seq, ...delivery }: Kept): Delivery => structuredClone(delivery);

/**
 * Delivers outbound events with the retry ladder of spec 8. Each attempt sends the same body
 * bytes under a fresh `t=`, signed with every active secret of the tenant (one `v1` each).
 */
export class WebhookDispatcher {
  readonly #deps: DispatcherDeps;
  #deliveries: Kept[] = [];
  // Per tenant, so a release looks only at that tenant's queued deliveries.
  readonly #queued = new Map<string, Kept[]>();
  #produced = 0;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #closing = new AbortController();
  readonly #chains = new Map<string, Promise<void>>();

  constructor(deps: DispatcherDeps) {
    this.#deps = deps;
  }

  enqueue(tenantId: string, envelope: OutboundEnvelope, correlationId: string): void {
    this.#forgetOldest();
    const delivery: Kept = {
      deliveryId: `dlv-${++this.#produced}`,
      tenantId,
      eventType: envelope.eventType,
      eventId: envelope.eventId,
      correlationId,
      envelope,
      body: JSON.stringify(envelope),
      status: 'queued',
      url: null,
      attempts: [],
      createdAt: this.#deps.clock.now(),
      nextAttemptAt: null,
      seq: this.#produced,
    };
    this.#deliveries.push(delivery);
    this.#queue(delivery);
    this.release(tenantId);
  }

  #queue(delivery: Kept): void {
    delivery.status = 'queued';
    const queued = this.#queued.get(delivery.tenantId);
    if (queued) queued.push(delivery);
    else this.#queued.set(delivery.tenantId, [delivery]);
  }

  /** Starts the queued deliveries of a tenant, oldest first, once its target is ready. */
  release(tenantId: string): void {
    if (this.#closing.signal.aborted || !this.#deps.target(tenantId)) return;
    const queued = this.#queued.get(tenantId);
    if (!queued) return;
    this.#queued.delete(tenantId);
    // A delivery queued again (its target went away mid-chain) keeps its place: production order.
    queued.sort((a, b) => a.seq - b.seq);
    for (const delivery of queued) {
      if (delivery.status !== 'queued') continue;
      delivery.status = 'pending';
      // One tenant's first attempts go out one after another, in the order they were produced.
      const chain = (this.#chains.get(tenantId) ?? Promise.resolve()).then(() => this.#attempt(delivery));
      this.#chains.set(tenantId, chain);
      this.#track(chain);
    }
  }

  // Only ended deliveries are forgotten, oldest first, a tenth of the limit at a time.
  #forgetOldest(): void {
    const { historyLimit } = this.#deps;
    if (this.#deliveries.length <= historyLimit + Math.ceil(historyLimit / 10)) return;
    let excess = this.#deliveries.length - historyLimit;
    this.#deliveries = this.#deliveries.filter((d) => {
      const ended = d.status === 'delivered' || d.status === 'rejected' || d.status === 'failed';
      if (!ended || excess <= 0) return true;
      excess -= 1;
      return false;
    });
  }

  /** Copies of the deliveries a filter selects, oldest first; `after` and `deliveryId` start from a binary search. */
  list({ after, deliveryId, ...rest }: DeliveryFilter = {}): Delivery[] {
    const seq = deliveryId === undefined ? undefined : Number(deliveryId.slice('dlv-'.length));
    const from = this.#firstAfter(seq === undefined ? (after ?? 0) : seq - 1);
    // The delivery a `deliveryId` names can only be the first one from there.
    const candidates = this.#deliveries.slice(from, seq === undefined ? undefined : from + 1);
    return candidates.filter((delivery) => matches(delivery, { ...rest, seq })).map(publicCopy);
  }

  #firstAfter(seq: number): number {
    let low = 0;
    let high = this.#deliveries.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.#deliveries[mid] as Kept).seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The newest `count` deliveries, newest last: what a dashboard shows without copying them all. */
  recent(count: number): Delivery[] {
    return this.#deliveries.slice(-count).map(publicCopy);
  }

  /** Resolves once no attempt is under way (scheduled retries are not waited for). */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.idle();
  }

  #track(work: Promise<void>): Promise<void> {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
    return work;
  }

  async #attempt(delivery: Kept): Promise<void> {
    const { clock, serviceNow, timeoutMs } = this.#deps;
    const target = this.#deps.target(delivery.tenantId);
    if (this.#closing.signal.aborted) return;
    if (!target) return this.#queue(delivery);
    const number = delivery.attempts.length + 1;
    const at = clock.now();
    delivery.status = 'pending';
    delivery.nextAttemptAt = null;
    delivery.url = target.url;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([timeout, this.#closing.signal]);
    let answer: Omit<DeliveryAttempt, 'number' | 'at'>;
    try {
      const response = await this.#deps.fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-signature': signPayload(delivery.body, target.secrets, {
            timestamp: Math.floor(serviceNow() / 1000),
          }),
          'x-tenantid': delivery.tenantId,
          'x-correlation-id': delivery.correlationId,
        },
        body: delivery.body,
        redirect: 'manual',
        signal,
      });
      // A body still arriving at the timeout is a timeout; one past the byte cap is judged by its start.
      const body = await readAnswer(response, signal);
      if (!body.complete && body.why !== 'too-long') throw new Error(`answer ${body.why}`);
      const { status } = response;
      answer = { status, code: codeOf(body.text), error: null, verdict: judgeAnswer(status, body.text) };
    } catch {
      if (this.#closing.signal.aborted) return;
      answer = { status: null, code: null, error: timeout.aborted ? 'timeout' : 'network', verdict: 'retry' };
    }
    delivery.attempts.push({ number, at, ...answer });
    if (answer.verdict !== 'retry') {
      delivery.status = answer.verdict;
    } else if (number >= WEBHOOK_RETRY_LADDER_MS.length) {
      delivery.status = 'failed';
    } else {
      // The ladder counts from the first attempt's start.
      const due = delivery.attempts[0]!.at + (WEBHOOK_RETRY_LADDER_MS[number] ?? 0);
      delivery.status = 'retry-scheduled';
      delivery.nextAttemptAt = due;
      clock.schedule(due - clock.now(), () => this.#track(this.#attempt(delivery)));
    }
  }
}
