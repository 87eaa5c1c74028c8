/**
 * The one shape of a request and an answer inside the emulator. The node server builds it
 * straight from `node:http`, with no Web `Request`/`Response` per request; `emulator.fetch` and
 * msw adapt their Web objects to it here.
 * Every route, the partner endpoints and the control interface alike, sees only this shape.
 */
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

const EMPTY = new Uint8Array(0);

/** A Web `Request` (from `emulator.fetch` or msw) as the emulator's request. */
export function fromWebRequest(request: Request): EmulatorRequest {
  const { pathname, search } = new URL(request.url);
  const bodyless = request.method === 'GET' || request.method === 'HEAD';
  // Read once, whoever asks first; every later reader gets the same bytes.
  let bytes: Promise<Uint8Array> | undefined;
  return {
    method: request.method,
    pathname,
    search,
    header: (name) => request.headers.get(name),
    body: () => {
      bytes ??= bodyless ? Promise.resolve(EMPTY) : request.arrayBuffer().then((b) => new Uint8Array(b));
      return bytes;
    },
  };
}

/** The emulator's answer as a Web `Response`, for `emulator.fetch` and msw. */
export function toWebResponse(response: EmulatorResponse): Response {
  return new Response(response.body, { status: response.status, headers: response.headers });
}

/**
 * The headers in the order a Web `Headers` lists them (sorted by name): how the node server has
 * always written them, so its answers stay the same byte for byte.
 */
export function sortedHeaders(headers: Record<string, string>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(headers).sort()) sorted[name] = headers[name] as string;
  return sorted;
}
