import { Agent, errors } from 'undici';
import {
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSettings,
  TransportTimeoutError,
} from '../client/transport.js';

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

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function headerReader(headers: Record<string, string | string[] | undefined>): TransportResponse['headers'] {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * The Node transport: undici over one keep-alive `Agent` per client, at most `connections`
 * sockets. The per-attempt timeout is the request's `AbortSignal` (set by the client core),
 * which covers connecting, the headers and the whole body.
 */
export function createUndiciTransport(settings: TransportSettings): Transport {
  const agent = new Agent({
    connections: settings.connections,
    keepAliveTimeout: UNDICI_DEFAULTS.keepAliveTimeoutMs,
    keepAliveMaxTimeout: UNDICI_DEFAULTS.keepAliveMaxTimeoutMs,
    connect: { timeout: UNDICI_DEFAULTS.connectTimeoutMs },
  });
  return {
    async request(request: TransportRequest): Promise<TransportResponse> {
      try {
        const response = await agent.request({
          origin: request.origin,
          path: request.path,
          method: request.method as 'GET' | 'POST',
          headers: request.headers,
          body: request.body,
          signal: request.signal,
        });
        const body = new Uint8Array(await response.body.arrayBuffer());
        return { status: response.statusCode, headers: headerReader(response.headers), body };
      } catch (err) {
        if (err instanceof errors.UndiciError && TIMEOUT_CODES.has(err.code)) {
          throw new TransportTimeoutError(err.message, { cause: err });
        }
        throw err;
      }
    },
    close: () => agent.close(),
  };
}
