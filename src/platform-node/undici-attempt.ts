import { type Dispatcher, errors } from 'undici';
import { type TransportResponse, TransportTimeoutError } from '../client/transport.js';
import type { InFlightAttempts, Tracked } from './in-flight-attempts.js';

type Headers = Record<string, string | string[] | undefined>;

function headerReader(headers: Headers): TransportResponse['headers'] {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

const NO_HEADERS: Headers = {};
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * One HTTP attempt on undici's `dispatch`: collects the answer's chunks and settles once, with
 * the whole answer, undici's error, the reason of the call's signal or of `close()`, or a
 * `TransportTimeoutError` when its deadline passed ({@link InFlightAttempts}).
 *
 * Why `dispatch` and not `agent.request()`: `request` wraps each answer in a Readable stream and an
 * `AsyncResource` that this client, which reads every answer whole, has no use for; handing undici
 * this handler instead took its CPU per request from 24 to 19 µs on a loopback server.
 *
 * The object is also the in-flight list's node and the caller's signal's abort listener
 * (`handleEvent`), so an attempt allocates no closure for either.
 */
export class UndiciAttempt implements Dispatcher.DispatchHandler, Tracked {
  deadline = 0;
  prev: Tracked | undefined;
  next: Tracked | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  /** Set once settled: a request undici starts later (it was queued for a socket) is aborted with it. */
  #reason: Error | undefined;
  #settled = false;
  #status = 0;
  #headers: Headers = NO_HEADERS;
  #chunks: Buffer[] = [];

  /** The caller's signal, when the call has one; `close()` reaches the others through `inFlight`. */
  readonly #signal: AbortSignal | undefined;

  constructor(
    signal: AbortSignal,
    private readonly inFlight: InFlightAttempts,
    private readonly resolve: (response: TransportResponse) => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    inFlight.add(this);
    if (signal !== inFlight.closed) {
      this.#signal = signal;
      signal.addEventListener('abort', this);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#reason) controller.abort(this.#reason);
    else this.#controller = controller;
  }

  onResponseStart(_controller: unknown, statusCode: number, headers: Headers): void {
    // 1xx answers are interim: the final one follows on the same request.
    if (statusCode < 200) return;
    this.#status = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: unknown, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#settle()) return;
    const chunks = this.#chunks;
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    this.resolve({ status: this.#status, headers: headerReader(this.#headers), body });
  }

  onResponseError(_controller: unknown, error: Error): void {
    if (!this.#settle()) return;
    // undici's own limits (connecting, and its 300 s header and body defaults) are timeouts too.
    const timedOut = error instanceof errors.UndiciError && TIMEOUT_CODES.has(error.code);
    this.reject(timedOut ? new TransportTimeoutError(error.message, { cause: error }) : error);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.cancel(this.#signal?.reason);
  }

  cancel(reason: unknown): void {
    this.#fail(reason as Error);
  }

  expire(): void {
    this.#fail(new TransportTimeoutError(`attempt timed out after ${this.inFlight.timeoutMs} ms`));
  }

  #fail(reason: Error): void {
    if (!this.#settle()) return;
    this.#reason = reason;
    this.#controller?.abort(reason);
    this.reject(reason);
  }

  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.inFlight.delete(this);
    this.#signal?.removeEventListener('abort', this);
    return true;
  }
}
