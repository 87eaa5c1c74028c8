import { attemptSignal } from './abort.js';
import { CappedBody, refuseDeclaredLength, TransportResponseTooLargeError } from './body-limit.js';
import {
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSettings,
  TransportTimeoutError,
} from './transport.js';

/**
 * A transport over a WHATWG `fetch` (the Web build's default and the `fetch` option): the runtime
 * owns the sockets. Each attempt gets its own signal, aborted by the call or at `timeoutMs` until
 * the body's last byte, and the body is cancelled past `maxResponseBytes`. Redirects come back
 * as they are: a redirected POST would silently become a GET.
 */
export function createFetchTransport(
  settings: Pick<TransportSettings, 'timeoutMs' | 'maxResponseBytes' | 'closed'>,
  fetchImpl?: typeof fetch,
): Transport {
  const { timeoutMs, maxResponseBytes } = settings;
  return {
    async request(request: TransportRequest): Promise<TransportResponse> {
      // Looked up per call, not at creation, so a fetch installed later (a test's msw) is used.
      const doFetch = fetchImpl ?? globalThis.fetch;
      if (typeof doFetch !== 'function') {
        throw new TypeError('No fetch in this runtime: pass the fetch option to LoyaltyClient');
      }
      const timing = attemptSignal(request.signal, settings.closed, timeoutMs);
      try {
        const response = await doFetch(request.origin + request.path, {
          method: request.method,
          headers: request.headers,
          // DOM's BodyInit wants an ArrayBuffer-backed view; every body the core builds is one.
          body: request.body as Uint8Array<ArrayBuffer> | undefined,
          signal: timing.signal,
          redirect: 'manual',
        });
        const body = await readCapped(response, maxResponseBytes);
        return { status: response.status, headers: response.headers, body };
      } catch (err) {
        if (!timing.timedOut || err instanceof TransportResponseTooLargeError) throw err;
        throw new TransportTimeoutError(`attempt timed out after ${timeoutMs} ms`, { cause: err });
      } finally {
        timing.dispose();
      }
    },
    async close() {},
  };
}

/** The body of `response`, read to its end, or cancelled (closing the connection) past `limit`. */
async function readCapped(response: Response, limit: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  const body = new CappedBody(limit);
  try {
    refuseDeclaredLength(response.headers.get('content-length'), limit);
    if (reader)
      for (let read = await reader.read(); !read.done; read = await reader.read()) body.push(read.value);
  } catch (err) {
    await reader?.cancel().catch(() => {});
    throw err;
  }
  return body.bytes();
}
