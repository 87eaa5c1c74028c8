import type { Receiver } from '../webhooks/receiver-types.js';
import type { ExchangeOptions } from './adapter-options.js';
import { concatChunks } from './concat-chunks.js';
import { answerRead, type BodyRead, methodNotAllowed } from './refusals.js';

/**
 * One delivery as a Web `Request` (fetch handlers, Hono, Bun, Deno, Workers, the Next.js App
 * Router): read the raw bytes, hand them to the receiver, turn its answer into a `Response`.
 */
export async function answerWebRequest(
  receiver: Receiver,
  request: Request,
  options: ExchangeOptions,
): Promise<Response> {
  const { headers } = request;
  const answer =
    request.method !== 'POST'
      ? methodNotAllowed(headers)
      : await answerRead(receiver, await readBody(request, options), headers, options, false);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
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
