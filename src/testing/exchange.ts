/** The one shape of a request inside the emulator, whatever the transport (docs/ARCHITECTURE.md). */
export interface EmulatorRequest {
  method: string;
  /** The URL's path, as `new URL(...).pathname` gives it (normalized, still percent-encoded). */
  pathname: string;
  /** The query string with its `?`, or `''`. */
  search: string;
  /** A header's value by lower-case name, `null` when absent (repeated ones joined by `, `). */
  header(name: string): string | null;
  /** The raw body bytes, read once; empty for GET and HEAD. */
  body(): Promise<Uint8Array>;
}

/** An answer: status, headers (lower-case names) and the body (JSON or the dashboard's HTML). */
export interface EmulatorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * What the emulator's core answers a request with. The transports (node server, in-process
 * `fetch`, msw) turn a `response` into bytes, a `reset` into a dropped connection and a `hang`
 * into silence until the caller gives up.
 */
export type EmulatorReply =
  | { kind: 'response'; response: EmulatorResponse }
  | { kind: 'reset' }
  | { kind: 'hang' };

/** The core as the transports see it: a request -> reply function and a way to wait out a hang. */
export interface EmulatorTransport {
  /** `basePath`: the path of a base URL the partner paths sit under (msw); none over HTTP. */
  handle(request: EmulatorRequest, basePath?: string): Promise<EmulatorReply>;
  /** Resolves when `signal` aborts or the emulator closes: how long a hung request stays open. */
  released(signal?: AbortSignal): Promise<void>;
}

/** The body of a GET or HEAD. */
export const EMPTY = new Uint8Array(0);

/**
 * Answers a Web `Request` (from `emulator.fetch` or msw) through the core: a Web `Response`, or
 * `undefined` when the connection is dropped (a reset, or a hang once the caller gives up).
 */
export async function answerWebRequest(
  transport: EmulatorTransport,
  request: Request,
  basePath?: string,
): Promise<Response | undefined> {
  const { pathname, search } = new URL(request.url);
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  // Read once, whoever asks first; every later reader gets the same bytes.
  let bytes: Promise<Uint8Array> | undefined;
  const reply = await transport.handle(
    {
      method: request.method,
      pathname,
      search,
      header: (name) => request.headers.get(name),
      body: () => {
        bytes ??= bodyless ? Promise.resolve(EMPTY) : request.arrayBuffer().then((b) => new Uint8Array(b));
        return bytes;
      },
    },
    basePath,
  );
  if (reply.kind === 'response') {
    const { body, status, headers } = reply.response;
    return new Response(body, { status, headers });
  }
  if (reply.kind === 'hang') await transport.released(request.signal);
  return undefined;
}

/** The headers sorted by name, as a Web `Headers` lists them: the node server's bytes stay the same. */
export const sortedHeaders = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : 1)));
