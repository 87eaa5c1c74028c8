import { correlationIdOf, errorResponse, type ReceiverResponse } from '../webhooks/answers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { concatChunks } from './concat-chunks.js';

/**
 * One delivery as a Web `Request` (fetch handlers, Hono, Bun, Deno, Workers, the Next.js App
 * Router): read the raw bytes, hand them to the receiver, turn its answer into a `Response`.
 */
export async function answerWebRequest(
  receiver: Receiver,
  request: Request,
  maxBodyBytes: number,
): Promise<Response> {
  if (request.method !== 'POST') {
    const refused = errorResponse(
      'METHOD_NOT_ALLOWED',
      'Webhook deliveries are POST requests',
      correlationIdOf(request.headers),
    );
    return toResponse(refused, { allow: 'POST' });
  }
  if (request.bodyUsed) {
    const hint =
      'The request body was read before the webhook handler got it (c.req.json()?); pass the untouched Request';
    return toResponse(errorResponse('RAW_BODY_UNAVAILABLE', hint, correlationIdOf(request.headers)));
  }
  const body = await readBody(request, maxBodyBytes);
  if (!body) {
    const message = `The body is larger than ${maxBodyBytes} bytes`;
    return toResponse(errorResponse('PAYLOAD_TOO_LARGE', message, correlationIdOf(request.headers)));
  }
  return toResponse(await receiver.handle({ rawBody: body, headers: request.headers }));
}

function toResponse(answer: ReceiverResponse, extra: Record<string, string> = {}): Response {
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, ...extra } });
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
