import type { Agent } from 'undici';
import { attemptSignal } from '../client/abort.js';
import { CappedBody, refuseDeclaredLength, TransportResponseTooLargeError } from '../client/body-limit.js';
import {
  type Transport,
  type TransportRequest,
  type TransportResponse,
  type TransportSettings,
  TransportTimeoutError,
} from '../client/transport.js';

// undici's own limits (connecting, and its 300 s header and body defaults) are timeouts too.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

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

/** A keep-alive undici `Agent` with at most `connections` sockets, undici loaded first. */
export async function createUndiciAgent(settings: Pick<TransportSettings, 'connections'>): Promise<Agent> {
  const { Agent } = await import('undici');
  // Keep-alive below the idle timeouts of common servers (Node 5 s, nginx 75 s, AWS ALB 60 s), so
  // the client drops an idle socket first; the remaining race ends in a network error it retries.
  return new Agent({
    connections: settings.connections,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 4_000,
    connect: { timeout: 10_000 },
  });
}

/**
 * The Node transport: `agent.request()` over one keep-alive undici `Agent` per client.
 * `timeoutMs` bounds each attempt from the moment it is handed over (waiting for a free socket
 * and connecting included) to the last byte of the answer, through one signal per attempt; the
 * body is read chunk by chunk and destroyed (which closes the socket) past `maxResponseBytes`.
 */
export function createUndiciTransport(dispatcher: Agent, settings: TransportSettings): Transport {
  const { timeoutMs, maxResponseBytes } = settings;
  return {
    async request(request: TransportRequest): Promise<TransportResponse> {
      const { closed } = settings;
      request.signal.throwIfAborted();
      closed.throwIfAborted();
      const timing = attemptSignal(request.signal, closed, timeoutMs);
      try {
        const { origin, path, method, headers, body } = request;
        const response = await timing.race(
          dispatcher.request({
            origin,
            path,
            method: method as 'GET' | 'POST',
            headers,
            body,
            signal: timing.signal,
          }),
        );
        const stream = response.body;
        const collected = new CappedBody(maxResponseBytes);
        try {
          refuseDeclaredLength(response.headers['content-length'] as string | undefined, maxResponseBytes);
          for await (const chunk of stream) collected.push(chunk as Buffer);
        } catch (err) {
          // Destroying an unfinished body closes its socket: nothing more is read from it.
          stream.destroy();
          throw err;
        }
        return {
          status: response.statusCode,
          headers: headerReader(response.headers),
          body: collected.bytes(),
        };
      } catch (err) {
        if (err instanceof TransportResponseTooLargeError) throw err;
        if (timing.timedOut || TIMEOUT_CODES.has((err as { code?: string } | null)?.code ?? '')) {
          throw new TransportTimeoutError(
            timing.timedOut ? `attempt timed out after ${timeoutMs} ms` : (err as Error).message,
            { cause: err },
          );
        }
        // Aborted by the caller or by close(): the reason, not undici's wrapper of it.
        if (request.signal.aborted) throw request.signal.reason;
        if (closed.aborted) throw closed.reason;
        throw err;
      } finally {
        timing.dispose();
      }
    },
    async close() {
      await dispatcher.close();
    },
  };
}
