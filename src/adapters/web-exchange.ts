import { concatChunks } from '../internal/concat-chunks.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import {
  type AdapterOptions,
  type ExchangeOptions,
  type FrameworkHint,
  normalizeAdapterOptions,
} from './adapter-options.js';
import { answerRead, type BodyRead, methodNotAllowed } from './refusals.js';

/**
 * A `(Request) => Promise<Response>` for a receiver (fetch handlers, Hono, Bun, Deno, Workers, the
 * Next.js App Router): read the raw bytes, hand them to the receiver, answer with a `Response`.
 * The options are checked now, under the adapter's name.
 */
export function webHandler(
  adapter: string,
  receiver: Receiver,
  options: AdapterOptions | undefined,
  hint: FrameworkHint,
): (request: Request) => Promise<Response> {
  const settings = normalizeAdapterOptions(adapter, receiver, options, hint);
  return async (request) => {
    const { headers } = request;
    const answer =
      request.method !== 'POST'
        ? methodNotAllowed(headers)
        : await answerRead(receiver, await readBody(request, settings), headers, settings, false);
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };
}

/** A Request's body is read whole or refused: its sender cannot go away in between. */
type WebBodyRead = Exclude<BodyRead, { kind: 'aborted' }>;

/**
 * The body's bytes, `too-large` as soon as it grows past `maxBodyBytes`, `timed-out` when it is
 * not whole within `bodyTimeoutMs` (the rest is not read either way).
 */
async function readBody(request: Request, options: ExchangeOptions): Promise<WebBodyRead> {
  const { maxBodyBytes: maxBytes, bodyTimeoutMs: timeoutMs } = options;
  if (request.bodyUsed) return { kind: 'consumed' };
  if (Number(request.headers.get('content-length')) > maxBytes) return { kind: 'too-large' };
  if (!request.body) return { kind: 'read', body: new Uint8Array(0) };
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<WebBodyRead>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timed-out' }), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), deadline]);
      if ('kind' in read) return stopReading(reader, read);
      if (read.done) return { kind: 'read', body: concatChunks(chunks, size) };
      size += read.value.byteLength;
      if (size > maxBytes) return stopReading(reader, { kind: 'too-large' });
      chunks.push(read.value);
    }
  } finally {
    clearTimeout(timer);
  }
}

function stopReading<T>(reader: ReadableStreamDefaultReader<Uint8Array>, why: T): T {
  reader.cancel().catch(() => {});
  return why;
}
