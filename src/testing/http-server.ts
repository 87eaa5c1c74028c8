import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmulatorReply } from './http-reply.js';

/** The core as the transports see it: a `Request -> reply` function and a way to wait out a hang. */
export interface EmulatorTransport {
  /** `basePath`: the path of a base URL the partner paths sit under (msw); none over HTTP. */
  handle(request: Request, basePath?: string): Promise<EmulatorReply>;
  /** Resolves when `signal` aborts or the emulator closes: how long a hung request stays open. */
  released(signal?: AbortSignal): Promise<void>;
}

/**
 * Options of `emulator.listen`.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const { url } = await createEmulator().listen({ port: 0, host: '127.0.0.1' });
 * ```
 */
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
}

/**
 * Defaults of `ListenOptions`, declared once.
 *
 * @example
 * ```ts
 * import { LISTEN_DEFAULTS } from 'loyalty-partner-sdk/testing';
 * console.log(LISTEN_DEFAULTS.host); // '127.0.0.1'
 * ```
 */
export const LISTEN_DEFAULTS = { port: 0, host: '127.0.0.1' } as const satisfies Required<ListenOptions>;

// Framing headers describe the node connection, not the request the core sees.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

// No `signal` on the Request: the server waits out a hang on its own signal, and a Request tied
// to one costs a dependent AbortSignal per request, kept until the garbage collector runs.
async function toRequest(req: IncomingMessage, origin: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const method = req.method ?? 'GET';
  const body = method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks);
  return new Request(new URL(req.url ?? '/', origin), { method, headers, body });
}

async function serve(
  transport: EmulatorTransport,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const gone = new AbortController();
  // Aborting builds a DOMException: only a connection closed before the answer needs it.
  res.on('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  try {
    const reply = await transport.handle(await toRequest(req, origin));
    if (reply.kind === 'hang') await transport.released(gone.signal);
    if (reply.kind !== 'response') return void req.socket.destroy();
    const body = Buffer.from(await reply.response.arrayBuffer());
    res.writeHead(reply.response.status, Object.fromEntries(reply.response.headers));
    res.end(body);
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
  const { port, host } = { ...LISTEN_DEFAULTS, ...options };
  let origin = '';
  const server = createServer((req, res) => void serve(transport, origin, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostname = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${hostname}:${address.port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
