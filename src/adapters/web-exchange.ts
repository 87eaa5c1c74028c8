import type { ReceiverResponse } from '../webhooks/answers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { concatChunks } from './concat-chunks.js';
import { type ExchangeOptions, methodNotAllowed, payloadTooLarge, rawBodyUnavailable } from './refusals.js';

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
  const body = await readBody(request, options.maxBodyBytes);
  if (!body) return toResponse(payloadTooLarge(request.headers, options.maxBodyBytes, false));
  return toResponse(await receiver.handle({ rawBody: body, headers: request.headers }));
}

function toResponse(answer: ReceiverResponse): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** The body's bytes, or `undefined` as soon as it grows past `maxBytes` (the rest is not read). */
async function readBody(request: Request, maxBytes: number): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length')) > maxBytes) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return concatChunks(chunks, size);
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
}
