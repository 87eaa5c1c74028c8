import type { ReceiverResponse } from '../webhooks/answers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { concatChunks } from './concat-chunks.js';
import { utf8Headers } from './header-bytes.js';
import {
  type ExchangeOptions,
  methodNotAllowed,
  payloadTooLarge,
  rawBodyUnavailable,
  requestTimeout,
} from './refusals.js';

/**
 * One delivery as a Web `Request` (fetch handlers, Hono, Bun, Deno, Workers, the Next.js App
 * Router): read the raw bytes, hand them to the receiver, turn its answer into a `Response`.
 */
export async function answerWebRequest(
  receiver: Receiver,
  request: Request,
  options: ExchangeOptions,
): Promise<Response> {
  if (request.method !== 'POST') return toResponse(methodNotAllowed(request.headers));
  if (request.bodyUsed) return toResponse(rawBodyUnavailable(receiver, options, request.headers));
  const body = await readBody(request, options.maxBodyBytes, options.bodyTimeoutMs);
  if (body === 'too-large') return toResponse(payloadTooLarge(request.headers, options.maxBodyBytes, false));
  if (body === 'timed-out') return toResponse(requestTimeout(request.headers, options.bodyTimeoutMs, false));
  return toResponse(await receiver.handle({ rawBody: body, headers: utf8Headers(request.headers) }));
}

function toResponse(answer: ReceiverResponse): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/**
 * The body's bytes; `'too-large'` as soon as it grows past `maxBytes`, `'timed-out'` when it is
 * not whole within `timeoutMs` (the rest is not read either way).
 */
async function readBody(
  request: Request,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array | 'too-large' | 'timed-out'> {
  if (Number(request.headers.get('content-length')) > maxBytes) return 'too-large';
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), deadline]);
      if (read === 'timed-out') return stopReading(reader, read);
      if (read.done) return concatChunks(chunks, size);
      size += read.value.byteLength;
      if (size > maxBytes) return stopReading(reader, 'too-large');
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
