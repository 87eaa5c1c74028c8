import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, beforeEach } from 'vitest';

/** One request as the server saw it. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Which TCP connection carried it (1 for the first one the server accepted). */
  connection: number;
  /** How many requests that connection had carried before this one. */
  previousOnConnection: number;
  socket: Socket;
}

export type Script = (request: Received, res: ServerResponse, index: number) => void | Promise<void>;

/** A real `node:http` server on loopback (port 0) whose answers a test scripts. */
export interface ScriptedServer {
  url: string;
  requests: Received[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  script: Script;
  close(): Promise<void>;
}

export async function startScriptedServer(script: Script = (_req, res) => ok(res)): Promise<ScriptedServer> {
  const requests: Received[] = [];
  let connections = 0;
  const perSocket = new WeakMap<Socket, { id: number; count: number }>();
  const state: ScriptedServer = {
    url: '',
    requests,
    get connections() {
      return connections;
    },
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const socket = req.socket;
    const info = perSocket.get(socket)!;
    const received: Received = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
      connection: info.id,
      previousOnConnection: info.count++,
      socket,
    };
    requests.push(received);
    await state.script(received, res, requests.length - 1);
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    perSocket.set(socket, { id: connections, count: 0 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** `200` with a small JSON body and a correlation id. */
export function ok(
  res: ServerResponse,
  body: unknown = { accepted: true },
  headers: Record<string, string> = {},
): void {
  res.writeHead(200, { 'content-type': 'application/json', 'x-correlation-id': 'corr-ok', ...headers });
  res.end(JSON.stringify(body));
}

/** The contract's error envelope with `code` and a correlation id. */
export function fail(
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'x-correlation-id': `corr-${code}`,
    ...headers,
  });
  res.end(JSON.stringify({ code, message: `scripted ${code}.`, correlationId: `corr-${code}` }));
}

/**
 * Checks an `X-Signature` the way the service would, written by hand on `node:crypto` rather
 * than with the SDK's verifier: HMAC-SHA256 over `<t>.` + the raw body bytes, hex, compared in
 * constant time. Returns the `t` it carried, or `undefined` when no `v1` matches.
 */
export function verifyByHand(
  body: Buffer,
  header: string | string[] | undefined,
  secret: string,
): number | undefined {
  if (typeof header !== 'string') return undefined;
  const parts = header.split(',');
  const t = parts.find((part) => part.startsWith('t='))?.slice(2);
  if (!t || !/^\d+$/.test(t)) return undefined;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  const match = parts
    .filter((part) => part.startsWith('v1='))
    .some((part) => {
      const given = Buffer.from(part.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  return match ? Number(t) : undefined;
}

/**
 * A fresh scripted server for each test, closed after it together with the client the test made
 * (if any). The object returned stands for the current test's server.
 */
export function scriptedServerPerTest(client: () => { close(): Promise<void> } | undefined): ScriptedServer {
  let current: ScriptedServer | undefined;
  const started = () => {
    if (!current) throw new Error('the scripted server starts in beforeEach');
    return current;
  };
  beforeEach(async () => {
    current = await startScriptedServer();
  });
  afterEach(async () => {
    await client()?.close();
    await current?.close();
    current = undefined;
  });
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    get connections() {
      return started().connections;
    },
    get script() {
      return started().script;
    },
    set script(script) {
      started().script = script;
    },
    close: () => started().close(),
  };
}
