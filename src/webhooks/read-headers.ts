/**
 * Request headers in any of the shapes frameworks hand out: a Web `Headers` (fetch, Hono, Next.js
 * App Router, Workers), Node's `IncomingHttpHeaders` (whose values may be `string[]`), or a plain
 * record such as `{ 'X-Signature': '...' }`. Names are matched case-insensitively.
 */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The value of one header, or `undefined` when it is absent. Repeated values are joined with
 * `', '`, as Node does for most headers, so a doubled `X-Signature` is refused as malformed
 * instead of one copy being picked silently.
 */
export function readHeader(headers: HeadersLike | null | undefined, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const record = headers as Readonly<Record<string, unknown>>;
  const lower = name.toLowerCase();
  // Node lowercases every name, so the exact lookup almost always answers without a scan.
  let value = Object.hasOwn(record, lower) ? record[lower] : undefined;
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    const strings = value.filter((item): item is string => typeof item === 'string');
    return strings.length ? strings.join(', ') : undefined;
  }
  return undefined;
}
