import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** Where a conformance test sends deliveries: a real loopback server, or a fetch handler called directly. */
export interface Target {
  url: string;
  send(request: Request): Promise<Response>;
  close(): Promise<void>;
}

const PATH = '/loyalty/webhooks';

/** A node:http server on a free loopback port, closed (with its keep-alive sockets) by `close`. */
export async function listen(listener: RequestListener): Promise<Target> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${PATH}`,
    send: (request) => fetch(request),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A fetch handler driven with real `Request` objects, in process. */
export function direct(handler: (request: Request) => Promise<Response>): Target {
  return { url: `http://receiver.test${PATH}`, send: handler, close: async () => {} };
}

/** A fetch handler behind a real node:http server that turns each request into a streaming `Request`. */
export function bridged(handler: (request: Request) => Promise<Response>): Promise<Target> {
  return listen(async (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      for (const item of [value ?? []].flat()) headers.append(name, item);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method,
      headers,
      body: hasBody ? (Readable.toWeb(req) as ReadableStream) : null,
      duplex: 'half',
    } as RequestInit);
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
}
