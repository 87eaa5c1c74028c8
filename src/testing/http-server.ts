import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { listenHttp } from '../platform-node/listen-http.js';
import { EMPTY, type EmulatorRequest, type EmulatorTransport, sortedHeaders } from './exchange.js';

/** Options of `emulator.listen`. */
export interface ListenOptions {
  /**
   * TCP port; `0` picks a free one.
   * @default 0
   */
  port?: number;
  /**
   * Interface to bind. Loopback only by default: the emulator is for tests, not for a network.
   * @default '127.0.0.1'
   */
  host?: string;
  /**
   * Host names the control interface (`/__emulator`) answers besides `localhost` and IP
   * addresses, e.g. a Docker Compose service name. Any other `Host` is refused (403), so a web
   * page on a domain that resolves to this machine cannot drive the emulator.
   * @default []
   */
  allowedHosts?: readonly string[];
}

export const LISTEN_DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  allowedHosts: [],
} as const satisfies Required<ListenOptions>;

// A plain path skips the URL parser; one with dots, escapes, a query or a leading `//` goes through it.
const PLAIN_PATH = /^\/(?!\/)[\w\-/]*$/;

function toEmulatorRequest(req: IncomingMessage, origin: string): EmulatorRequest {
  const target = req.url ?? '/';
  let pathname = target;
  let search = '';
  if (!PLAIN_PATH.test(target)) ({ pathname, search } = new URL(target, origin));
  const method = req.method ?? 'GET';
  // Drained whatever the route, so the connection stays usable; GET and HEAD have no body.
  const bytes = buffer(req);
  const body = method === 'GET' || method === 'HEAD' ? bytes.then(() => EMPTY) : bytes;
  // Caught here too: a route that never reads the body must not leave a rejection unhandled.
  body.catch(() => undefined);
  return {
    method,
    pathname,
    search,
    header(name) {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    body: () => body,
  };
}

async function serve(
  transport: EmulatorTransport,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const gone = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const request = toEmulatorRequest(req, origin);
    // A request cut off mid-body is a 500, before routing.
    await request.body();
    const reply = await transport.handle(request);
    if (reply.kind === 'hang') await transport.released(gone.signal);
    if (reply.kind !== 'response') return void req.socket.destroy();
    res.writeHead(reply.response.status, sortedHeaders(reply.response.headers));
    res.end(reply.response.body);
  } catch {
    if (res.headersSent) return void req.socket.destroy();
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ code: 'EMULATOR_ERROR', message: 'The emulator failed to answer this request' }),
    );
  }
}

/** Serves the core over `node:http`; `close()` drops every open connection, hung ones included. */
export async function startHttpServer(
  transport: EmulatorTransport,
  options: ListenOptions = {},
): Promise<{ url: string; close: () => Promise<void> }> {
  // An option given as `undefined` keeps its default: never all interfaces by accident.
  const { port, host } = mergeDefaults<ListenOptions>(LISTEN_DEFAULTS, options);
  let origin = '';
  const server = createServer((req, res) => void serve(transport, origin, req, res));
  const { close } = await listenHttp(server, port, host);
  const address = server.address() as AddressInfo;
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${hostname}:${address.port}`;
  return { url: origin, close };
}
