import type { ServerResponse } from 'node:http';
import type { ReceiverResponse } from '../webhooks/answers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import type { ExchangeOptions } from './adapter-options.js';
import { type NodeRequest, readNodeBody } from './read-node-body.js';
import { answerRead, methodNotAllowed } from './refusals.js';

/**
 * One delivery through Node's `req` (node:http, Express, Koa, Next.js `pages/api`): read the raw
 * body, hand it to the receiver, and say what to answer; `undefined` when the sender went away.
 */
export async function nodeAnswer(
  receiver: Receiver,
  req: NodeRequest,
  options: ExchangeOptions,
): Promise<ReceiverResponse | undefined> {
  if (req.method !== 'POST') return methodNotAllowed(req.headers);
  const read = await readNodeBody(req, options.maxBodyBytes, options.bodyTimeoutMs);
  if (read.kind === 'aborted') return undefined; // nobody is left to read an answer
  return answerRead(receiver, read, req.headers, options, true);
}

/** {@link nodeAnswer}, written to `res`. Rejects only if writing the answer throws. */
export async function answerNodeRequest(
  receiver: Receiver,
  req: NodeRequest,
  res: ServerResponse,
  options: ExchangeOptions,
): Promise<void> {
  const answer = await nodeAnswer(receiver, req, options);
  if (answer) sendNodeAnswer(res, answer);
}

/** Writes an answer to `res`, unless something else already answered. */
export function sendNodeAnswer(res: ServerResponse, answer: ReceiverResponse): void {
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}
