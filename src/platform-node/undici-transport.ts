import { Agent } from 'undici';
import type {
  Transport,
  TransportRequest,
  TransportResponse,
  TransportSettings,
} from '../client/transport.js';
import { InFlightAttempts } from './in-flight-attempts.js';
import { UndiciAttempt } from './undici-attempt.js';

/**
 * Settings of the client's own undici `Agent`, declared once.
 *
 * The keep-alive timeout is below the idle timeouts of common servers and load balancers
 * (Node 5 s, nginx 75 s, AWS ALB 60 s), so the client drops an idle socket before the server
 * does; the race that remains (a server closing a socket just as a request leaves on it) ends
 * in a network error that the client retries with the same body.
 */
export const UNDICI_DEFAULTS = {
  keepAliveTimeoutMs: 4_000,
  keepAliveMaxTimeoutMs: 4_000,
  connectTimeoutMs: 10_000,
} as const;

/**
 * The Node transport: undici over one keep-alive `Agent` per client, at most `connections`
 * sockets. `timeoutMs` bounds each attempt from the moment it is handed over (waiting for a free
 * socket and connecting included) to the last byte of the answer. One {@link InFlightAttempts}
 * enforces it for all attempts and cancels them all on `close()`; a caller's signal cancels its own.
 */
export function createUndiciTransport(settings: TransportSettings): Transport {
  const agent = new Agent({
    connections: settings.connections,
    keepAliveTimeout: UNDICI_DEFAULTS.keepAliveTimeoutMs,
    keepAliveMaxTimeout: UNDICI_DEFAULTS.keepAliveMaxTimeoutMs,
    connect: { timeout: UNDICI_DEFAULTS.connectTimeoutMs },
  });
  const inFlight = new InFlightAttempts(settings.timeoutMs, settings.closed);
  return {
    request(request: TransportRequest): Promise<TransportResponse> {
      return new Promise((resolve, reject) => {
        const { signal } = request;
        if (signal.aborted) return reject(signal.reason);
        const attempt = new UndiciAttempt(signal, inFlight, resolve, reject);
        try {
          const { origin, path, method, headers, body } = request;
          agent.dispatch({ origin, path, method: method as 'GET' | 'POST', headers, body }, attempt);
        } catch (err) {
          attempt.onResponseError(undefined, err as Error);
        }
      });
    },
    close: () => agent.close(),
  };
}
