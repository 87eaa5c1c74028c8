import type { ReceiverCaseRequest } from './receiver-cases.js';

/** How a request is sent: the global `fetch`, or a fetch handler called in process. */
export type SendRequest = (request: Request) => Promise<Response>;

/** What came back from one request: an answer, or why there was none. */
export type Exchange =
  | { answered: true; status: number; contentType: string; text: string; ms: number }
  | { answered: false; problem: string; ms: number };

/** The first bytes of an answer kept for grading and display; a receiver may answer a whole page. */
const MAX_TEXT = 4096;

/**
 * Sends one request and reads the whole answer within `timeoutMs`. Never throws: a refused
 * connection, a reset or a receiver that never answers becomes `{ answered: false, problem }`.
 */
export async function exchange(
  send: SendRequest,
  url: string,
  request: ReceiverCaseRequest,
  timeoutMs: number,
): Promise<Exchange> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await send(
      new Request(url, {
        method: 'POST',
        headers: request.headers,
        body: new TextEncoder().encode(request.body),
        // A redirect is an answer of its own: the service does not follow it to another URL.
        redirect: 'manual',
        signal,
      }),
    );
    const text = await response.text();
    return {
      answered: true,
      status: response.status,
      contentType: (response.headers.get('content-type') ?? '').split(';')[0]!.trim(),
      text: text.slice(0, MAX_TEXT),
      ms: elapsed(),
    };
  } catch (err) {
    return { answered: false, problem: problemOf(err, signal, timeoutMs), ms: elapsed() };
  }
}

function problemOf(err: unknown, signal: AbortSignal, timeoutMs: number): string {
  if (signal.aborted) return `no answer within ${timeoutMs} ms (timed out)`;
  // undici reports the system error as the cause of its `TypeError: fetch failed`.
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const words: Record<string, string> = {
    ECONNREFUSED: 'connection refused: is the receiver running at this URL?',
    ECONNRESET: 'the connection was reset before an answer',
    ENOTFOUND: 'host not found',
    UND_ERR_SOCKET: 'the connection closed before an answer',
  };
  if (code !== undefined) return `no answer: ${words[code] ?? code} (${code})`;
  const message = err instanceof Error ? err.message : String(err);
  return typeof cause?.message === 'string'
    ? `no answer: ${message} (${cause.message})`
    : `no answer: ${message}`;
}

/** The error code an answer carries: the JSON `code`, when there is one. */
export function codeOf(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { code?: unknown } | null;
    return typeof body?.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

/** `HTTP 401 SIGNATURE_EXPIRED (12 ms)`, `HTTP 200 text/html (3 ms)`, or why there was no answer. */
export function describeExchange(result: Exchange): string {
  if (!result.answered) return result.problem;
  const code = codeOf(result.text);
  const kind =
    code ?? (result.contentType && result.contentType !== 'application/json' ? result.contentType : '');
  return `HTTP ${result.status}${kind ? ` ${kind}` : ''} (${result.ms} ms)`;
}
