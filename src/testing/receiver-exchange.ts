import { concatChunks } from '../internal/concat-chunks.js';
import type { ReceiverCaseRequest } from './receiver-cases.js';

/**
 * What came back from one request: a whole answer, or why there was none. `status` is set when
 * the receiver began to answer (a status line) but the body never ended within the caps.
 */
export type Exchange =
  | { answered: true; status: number; contentType: string; text: string; ms: number }
  | { answered: false; problem: string; ms: number; status?: number };

/** The first bytes of an answer kept for grading and display; a receiver may answer a whole page. */
const MAX_TEXT = 4096;

/** The most of an answer read, decoded: an error page is a few dozen KB; longer never ends for the kit. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** An answer's body, read up to a byte cap and a deadline; never more of it than the cap. */
export type AnswerBody =
  | { complete: true; text: string }
  | { complete: false; why: 'too-long' | 'timed-out' | 'cut-off'; bytes: number; text: string };

/**
 * Reads an answer's body, keeping its first `MAX_TEXT` bytes, until `MAX_ANSWER_BYTES` have come
 * (decoded, so a gzip bomb stops too) or `signal` aborts: memory stays bounded whatever is sent.
 */
export async function readAnswer(response: Response, signal: AbortSignal): Promise<AnswerBody> {
  const reader = response.body?.getReader();
  if (reader === undefined) return { complete: true, text: '' };
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let bytes = 0;
  const text = () => new TextDecoder().decode(concatChunks(kept, keptBytes));
  // A transport that does not watch the signal (a fetch handler in process) still stops on it.
  let onAbort = () => {};
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (signal.aborted) resolve('aborted');
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), aborted]).catch(() => 'broken' as const);
      if (next === 'aborted' || signal.aborted) {
        return { complete: false, why: 'timed-out', bytes, text: text() };
      }
      if (next === 'broken') return { complete: false, why: 'cut-off', bytes, text: text() };
      if (next.done) return { complete: true, text: text() };
      bytes += next.value.byteLength;
      if (keptBytes < MAX_TEXT) {
        const part = next.value.subarray(0, MAX_TEXT - keptBytes);
        kept.push(part.slice());
        keptBytes += part.byteLength;
      }
      if (bytes > MAX_ANSWER_BYTES) return { complete: false, why: 'too-long', bytes, text: text() };
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    reader.cancel().catch(() => {});
  }
}

/**
 * Sends one request and reads the answer within `timeoutMs` and `MAX_ANSWER_BYTES`. Never throws:
 * a refused connection, a reset, a receiver that never answers, an answer that never ends or
 * trickles in becomes `{ answered: false, problem }`. `send` is `fetch` or a fetch handler in process.
 */
export async function exchange(
  send: (request: Request) => Promise<Response>,
  url: string,
  request: ReceiverCaseRequest,
  timeoutMs: number,
): Promise<Exchange> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(timeoutMs);
  // A transport that ignores the signal cannot hold the kit past its timeout either.
  const timedOut = new Promise<never>((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  timedOut.catch(() => {});
  let response: Response;
  try {
    response = await Promise.race([
      send(
        new Request(url, {
          method: 'POST',
          headers: request.headers,
          body: new TextEncoder().encode(request.body),
          // A redirect is an answer of its own: the service does not follow it to another URL.
          redirect: 'manual',
          signal,
        }),
      ),
      timedOut,
    ]);
  } catch (err) {
    return { answered: false, problem: problemOf(err, signal, timeoutMs), ms: elapsed() };
  }
  const { status } = response;
  const body = await readAnswer(response, signal);
  if (!body.complete) {
    const problem = {
      'too-long': `HTTP ${status}, but the answer went on past ${MAX_ANSWER_BYTES / 1024 / 1024} MiB (decoded): stopped reading`,
      'timed-out': `HTTP ${status}, but the answer was not complete within ${timeoutMs} ms (${body.bytes} bytes came): stopped reading`,
      'cut-off': `HTTP ${status}, but the connection closed before the answer was complete (${body.bytes} bytes came)`,
    }[body.why];
    return { answered: false, problem, ms: elapsed(), status };
  }
  return {
    answered: true,
    status,
    contentType: (response.headers.get('content-type') ?? '').split(';')[0]!.trim(),
    text: body.text,
    ms: elapsed(),
  };
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
  const detail = typeof cause?.message === 'string' ? ` (${cause.message})` : '';
  return `no answer: ${err instanceof Error ? err.message : String(err)}${detail}`;
}

/** The `code` of an error envelope, or `null` when the body is not one. */
export function codeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as { code?: unknown } | null;
    return typeof parsed?.code === 'string' ? parsed.code : null;
  } catch {
    return null;
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
