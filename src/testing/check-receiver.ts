import { LoyaltyValidationError, newEventId } from '../contract/index.js';
import { type OptionCheck, optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import { MAX_TIMER_MS } from '../internal/timers.js';
import { type ReceiverCase, type ReceiverVerdict, receiverCases } from './receiver-cases.js';
import { describeExchange, type Exchange, exchange } from './receiver-exchange.js';

/**
 * Options of `checkReceiver`.
 *
 * @example
 * ```ts
 * import type { CheckReceiverOptions } from 'loyalty-partner-sdk/testing';
 * const options: CheckReceiverOptions = { url: 'http://127.0.0.1:3000/loyalty/webhooks', secret: 'whsec_test' };
 * ```
 */
export interface CheckReceiverOptions {
  /** The receiver's URL, as registered with the service. */
  url: string;
  /** The tenant's signing secret, as the receiver has it. */
  secret: string;
  /** Sent as `X-TenantId`. @default 'tenant-check' */
  tenantId?: string;
  /** An answer slower than this fails the promptness case (0 to 2^31 - 1). @default 5000 */
  slowMs?: number;
  /**
   * How long one request may take, its whole answer included, before it counts as unanswered
   * (1 to 2^31 - 1, the longest a timer waits). An answer is also read to 1 MiB at most, decoded.
   * @default 10000
   */
  timeoutMs?: number;
  /** Another transport, e.g. a fetch handler called in process. @default globalThis.fetch */
  fetch?: (request: Request) => Promise<Response>;
  /** The cases to send. @default receiverCases */
  cases?: readonly ReceiverCase[];
  /** Called as each case is graded, for progress output. */
  onResult?: (result: ReceiverCaseResult) => void;
}

/**
 * One graded case.
 *
 * @example
 * ```ts
 * import type { ReceiverCaseResult } from 'loyalty-partner-sdk/testing';
 * const failed = (r: ReceiverCaseResult) => !r.pass && `${r.name}: ${r.fix}`;
 * ```
 */
export interface ReceiverCaseResult {
  id: string;
  name: string;
  expected: string;
  observed: string;
  pass: boolean;
  /** What to change in the receiver; set when the receiver answered the case wrongly. */
  fix?: string;
}

/**
 * What `checkReceiver` found, case by case, with the number of cases passed and failed.
 *
 * @example
 * ```ts
 * import type { CheckReceiverReport } from 'loyalty-partner-sdk/testing';
 * const ok = (report: CheckReceiverReport) => report.failed === 0;
 * ```
 */
export interface CheckReceiverReport {
  cases: ReceiverCaseResult[];
  passed: number;
  failed: number;
}

const EXPECTED: Record<ReceiverVerdict, string> = {
  accept: '2xx',
  'reject-signature': '401 (e.g. INVALID_SIGNATURE), not SIGNATURE_EXPIRED',
  'reject-expired': '401 with SIGNATURE_EXPIRED in the body',
  'reject-payload': '4xx (e.g. 400 INVALID_PAYLOAD)',
};

function meets(verdict: ReceiverVerdict, result: Exchange): boolean {
  if (!result.answered) return false;
  const { status, text } = result;
  switch (verdict) {
    case 'accept':
      return status >= 200 && status < 300;
    case 'reject-signature':
      return status === 401 && !text.includes('SIGNATURE_EXPIRED');
    case 'reject-expired':
      return status === 401 && text.includes('SIGNATURE_EXPIRED');
    case 'reject-payload':
      return status >= 400 && status < 500;
  }
}

const ANSWER_THAT_ENDS =
  'answer with a short body that ends at once (an error envelope or {}), with a Content-Length or a ' +
  'final chunk; the service does not wait for an answer that goes on or trickles in';

// A URL's user name or password is never repeated in the message.
function checkOptions(url: string, slowMs: unknown, timeoutMs: unknown): void {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const checks: OptionCheck[] = [
    ['url', parsed?.protocol === 'http:' || parsed?.protocol === 'https:', 'must be an absolute http(s) URL'],
    parsed !== undefined && [
      'url',
      parsed.username === '' && parsed.password === '',
      'must not carry a user name or password (the service sends none; give the URL without them)',
    ],
    wholeNumber('timeoutMs', timeoutMs, 1, MAX_TIMER_MS, 'milliseconds'),
    wholeNumber('slowMs', slowMs, 0, MAX_TIMER_MS, 'milliseconds'),
  ];
  throwIfInvalid(
    optionIssues(checks),
    (issues) => new LoyaltyValidationError('INVALID_OPTIONS', 'checkReceiver: invalid options', issues),
  );
}

// 5xx and 429 are retried by the service (contract 3.2), so a copy answered so is not lost.
const retried = (result: Exchange) => result.answered && (result.status >= 500 || result.status === 429);

async function runCase(
  item: ReceiverCase,
  send: () => Promise<Exchange>,
): Promise<{ pass: boolean; observed: string; exchanges: Exchange[] }> {
  if (item.send === 'again') {
    const first = await send();
    if (!first.answered) return { pass: false, observed: describeExchange(first), exchanges: [first] };
    const again = await send();
    return {
      pass: meets(item.verdict, first) && meets(item.verdict, again),
      observed: `first ${describeExchange(first)}; again ${describeExchange(again)}`,
      exchanges: [first, again],
    };
  }
  if (item.send === 'at-once') {
    const exchanges = await Promise.all([1, 2, 3].map(() => send()));
    let pass = exchanges.every((copy) => meets(item.verdict, copy) || retried(copy));
    let observed = exchanges.map(describeExchange).join('; ');
    // A copy refused with a retryable status comes again later, as the service would send it.
    if (pass && exchanges.some(retried)) {
      const later = await send();
      exchanges.push(later);
      pass = meets(item.verdict, later);
      observed += `; redelivered later ${describeExchange(later)}`;
    }
    return { pass, observed, exchanges };
  }
  const result = await send();
  return { pass: meets(item.verdict, result), observed: describeExchange(result), exchanges: [result] };
}

/**
 * Sends the contract's delivery cases to a running receiver, signed as the service signs, and
 * grades each answer against sections 3.2, 5.2, 5.3 and 8 of the contract. Cases run one after
 * another; after two cases in a row get no answer at all (down, hanging), the rest are reported
 * as not sent, so the whole run stays bounded. A last case checks that every answer came within
 * `slowMs`. Each answer is read within `timeoutMs` and up to 1 MiB decoded, so an endless,
 * trickling or inflating (gzip bomb) answer ends its case with a clear verdict, in bounded memory.
 * Never throws for anything the receiver does; throws `LoyaltyValidationError` (`INVALID_OPTIONS`)
 * for a URL that is not http(s) or carries credentials, or a timer out of range.
 *
 * @example
 * ```ts
 * import { checkReceiver } from 'loyalty-partner-sdk/testing';
 * const report = await checkReceiver({ url: 'http://127.0.0.1:3000/loyalty/webhooks', secret: 'whsec_test' });
 * for (const c of report.cases) if (!c.pass) console.log(`${c.name}: ${c.observed}; fix: ${c.fix}`);
 * ```
 */
export async function checkReceiver(options: CheckReceiverOptions): Promise<CheckReceiverReport> {
  const { url, secret, tenantId = 'tenant-check', slowMs = 5000, timeoutMs = 10_000 } = options;
  checkOptions(url, slowMs, timeoutMs);
  const transport = options.fetch ?? ((request: Request) => fetch(request));
  const results: ReceiverCaseResult[] = [];
  const report = (result: ReceiverCaseResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  const timed: { ms: number; name: string }[] = [];
  let unanswered = 0;
  for (const item of options.cases ?? receiverCases) {
    const expected = EXPECTED[item.verdict];
    if (unanswered >= 2) {
      const observed = 'not sent: the two cases before got no answer';
      report({ id: item.id, name: item.name, expected, observed, pass: false });
      continue;
    }
    const now = Math.floor(Date.now() / 1000);
    const request = item.request({ secret, tenantId, now, eventId: newEventId() });
    const send = () => exchange(transport, url, request, timeoutMs);
    const { pass, observed, exchanges } = await runCase(item, send);
    const answered = exchanges.some((result) => result.answered);
    unanswered = answered ? 0 : unanswered + 1;
    for (const result of exchanges) if (result.answered) timed.push({ ms: result.ms, name: item.name });
    // Without an answer, the observation (refused, timed out) is the whole story; an answer that
    // began but never ended has a fix of its own.
    const begun = exchanges.some((result) => !result.answered && result.status !== undefined);
    const fix = pass ? {} : answered ? { fix: item.fix } : begun ? { fix: ANSWER_THAT_ENDS } : {};
    report({ id: item.id, name: item.name, expected, observed, pass, ...fix });
  }
  report(promptness(timed, slowMs));
  const passed = results.filter((result) => result.pass).length;
  return { cases: results, passed, failed: results.length - passed };
}

function promptness(timed: { ms: number; name: string }[], slowMs: number): ReceiverCaseResult {
  // The first of the slowest: the sort is stable.
  const slowest = [...timed].sort((a, b) => b.ms - a.ms)[0];
  const slow = timed.filter((item) => item.ms > slowMs).length;
  const pass = slowest !== undefined && slow === 0;
  const observed =
    slowest === undefined
      ? 'no answer to time'
      : `slowest ${slowest.ms} ms (${slowest.name})${slow > 0 ? `; ${slow} of ${timed.length} answers over ${slowMs} ms` : ''}`;
  return {
    id: 'prompt-answers',
    name: `answers every delivery within ${slowMs} ms`,
    expected: `each answer within ${slowMs} ms`,
    observed,
    pass,
    ...(!pass &&
      slowest !== undefined && {
        fix: 'answer 2xx as soon as the delivery is verified and stored; do slow work after answering (the service counts a slow answer as a timeout and retries)',
      }),
  };
}
