import type { ServerResponse } from 'node:http';
import { correlationIdOf, errorResponse, type ReceiverResponse } from '../webhooks/answers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type NodeRequest, readNodeBody } from './read-node-body.js';

/** How one Node adapter differs from the others. */
export interface NodeExchangeOptions {
  maxBodyBytes: number;
  /** What to tell the developer when a body parser consumed the body first. */
  consumedHint: string;
}

/**
 * One delivery through Node's `req`/`res` (node:http, Express, Next.js `pages/api`): read the raw
 * body, hand it to the receiver, write its answer. Rejects only if writing the answer throws.
 */
export async function answerNodeRequest(
  receiver: Receiver,
  req: NodeRequest,
  res: ServerResponse,
  options: NodeExchangeOptions,
): Promise<void> {
  if (req.method !== 'POST') {
    const refused = errorResponse(
      'METHOD_NOT_ALLOWED',
      'Webhook deliveries are POST requests',
      correlationIdOf(req.headers),
    );
    return send(res, refused, { allow: 'POST' });
  }
  const read = await readNodeBody(req, options.maxBodyBytes);
  switch (read.kind) {
    case 'aborted':
      return; // nobody is left to read an answer
    case 'consumed':
      return send(
        res,
        errorResponse('RAW_BODY_UNAVAILABLE', options.consumedHint, correlationIdOf(req.headers)),
      );
    case 'too-large': {
      const message = `The body is larger than ${options.maxBodyBytes} bytes`;
      // `close`: the rest of an oversized body is not read, so the connection cannot be reused.
      return send(res, errorResponse('PAYLOAD_TOO_LARGE', message, correlationIdOf(req.headers)), {
        connection: 'close',
      });
    }
    case 'read':
      return send(res, await receiver.handle({ rawBody: read.body, headers: req.headers }));
  }
}

function send(res: ServerResponse, answer: ReceiverResponse, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(answer.status, { ...answer.headers, ...extra });
  res.end(answer.body);
}
