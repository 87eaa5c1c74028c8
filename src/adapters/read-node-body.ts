import type { IncomingMessage } from 'node:http';
import { concatChunks } from '../internal/concat-chunks.js';
import type { BodyRead } from './refusals.js';

/**
 * A Node request as frameworks hand it over. A body parser in front may have read the stream and
 * left `body` (an object, or a `Buffer` from `express.raw()`) and, with the common `verify`
 * callback, the raw bytes as `rawBody`.
 *
 * @example
 * ```ts
 * import type { NodeRequest } from 'loyalty-partner-sdk/express';
 * const keepRawBody = (req: NodeRequest, _res: unknown, buf: Buffer) => {
 *   req.rawBody = buf;
 * };
 * ```
 */
export type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown };

/**
 * The exact bytes of the body, never past `maxBytes` nor longer than `timeoutMs`; bytes a parser
 * kept are used, and a stream already read is reported at once (its `end` is long gone). Never rejects.
 */
export function readNodeBody(req: NodeRequest, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  const kept = [req.rawBody, req.body].find((value) => value instanceof Uint8Array) as Uint8Array | undefined;
  if (kept)
    return Promise.resolve(kept.byteLength > maxBytes ? { kind: 'too-large' } : { kind: 'read', body: kept });
  if (req.readableEnded) return Promise.resolve({ kind: 'consumed' });
  if (req.destroyed) return Promise.resolve({ kind: 'aborted' });
  if (Number(req.headers?.['content-length']) > maxBytes) return Promise.resolve({ kind: 'too-large' });

  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    // A sender trickling bytes must not hold the connection and its buffer open for long.
    const deadline = setTimeout(() => finish({ kind: 'timed-out' }), timeoutMs);
    const finish = (result: BodyRead): void => {
      clearTimeout(deadline);
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onAbort);
      resolve(result);
    };
    const onData = (chunk: Uint8Array): void => {
      size += chunk.byteLength;
      // Past the limit nothing more is kept; the adapter answers 413 and closes the connection.
      if (size > maxBytes) finish({ kind: 'too-large' });
      else chunks.push(chunk);
    };
    const onEnd = (): void => finish({ kind: 'read', body: concatChunks(chunks, size) });
    const onAbort = (): void => finish({ kind: 'aborted' });
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onAbort);
  });
}
