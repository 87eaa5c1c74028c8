import { attemptSignal } from './abort.js';
import {
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSettings,
  TransportTimeoutError,
} from './transport.js';

/**
 * A transport over a WHATWG `fetch`: the Web build's default, and what the `fetch` option plugs
 * in on every build (edge runtimes, browsers, kiosk webviews, an in-process emulator). The
 * runtime owns the sockets, so `close()` has nothing to release. Each attempt runs under a signal
 * of its own, aborted by the call's signal or when `timeoutMs` runs out: `fetch` can be stopped
 * no other way.
 *
 * Redirects are not followed: a redirected POST would silently become a GET, so the 3xx itself
 * comes back to the client, which does not retry it.
 */
export function createFetchTransport(
  settings: Pick<TransportSettings, 'timeoutMs'>,
  fetchImpl?: typeof fetch,
): Transport {
  const { timeoutMs } = settings;
  return {
    async request(request: TransportRequest): Promise<TransportResponse> {
      // Looked up per call, not at creation, so a fetch installed later (a test's msw) is used.
      const doFetch = fetchImpl ?? globalThis.fetch;
      if (typeof doFetch !== 'function') {
        throw new TypeError('No fetch in this runtime: pass the fetch option to LoyaltyClient');
      }
      const timing = attemptSignal(request.signal, timeoutMs);
      try {
        const response = await doFetch(request.origin + request.path, {
          method: request.method,
          headers: request.headers,
          // DOM's BodyInit wants an ArrayBuffer-backed view; every body the core builds is one.
          body: request.body as Uint8Array<ArrayBuffer> | undefined,
          signal: timing.signal,
          redirect: 'manual',
        });
        const body = new Uint8Array(await response.arrayBuffer());
        return { status: response.status, headers: response.headers, body };
      } catch (err) {
        if (!timing.timedOut) throw err;
        throw new TransportTimeoutError(`attempt timed out after ${timeoutMs} ms`, { cause: err });
      } finally {
        timing.dispose();
      }
    },
    async close() {},
  };
}
