import { concatChunks } from '../internal/concat-chunks.js';

/*
 * The cap on what the client reads of an answer (`maxResponseBytes`), shared by both transports:
 * without it a wrong `baseUrl` or a hostile server could make the client buffer gigabytes.
 */

/** A transport read more than `maxResponseBytes` (or was told it would): it cut the connection. */
export class TransportResponseTooLargeError extends Error {
  // A literal, not `constructor.name`: minifiers rename classes.
  override get name(): 'TransportResponseTooLargeError' {
    return 'TransportResponseTooLargeError';
  }

  constructor(readonly limit: number) {
    super(`the answer's body is over maxResponseBytes (${limit} bytes); the connection was closed`);
  }
}

/** Throws at once when a `Content-Length` already says the body is over the limit. */
export function refuseDeclaredLength(contentLength: string | null | undefined, limit: number): void {
  if (contentLength && Number(contentLength) > limit) throw new TransportResponseTooLargeError(limit);
}

/** Collects an answer's chunks, refusing the one that would take it over the limit. */
export class CappedBody {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  constructor(readonly limit: number) {}

  /** Adds a chunk; throws {@link TransportResponseTooLargeError} once over the limit. */
  push(chunk: Uint8Array): void {
    this.#size += chunk.byteLength;
    if (this.#size > this.limit) throw new TransportResponseTooLargeError(this.limit);
    this.#chunks.push(chunk);
  }

  /** The whole body, as one view (the chunk itself when there was one). */
  bytes(): Uint8Array {
    return concatChunks(this.#chunks, this.#size);
  }
}
