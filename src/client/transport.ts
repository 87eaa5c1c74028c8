import type { Logger } from '../contract/logger.js';

/** One HTTP attempt, as the client core hands it to a transport. */
export interface TransportRequest {
  method: string;
  /** `scheme://host[:port]` of the service. */
  origin: string;
  /** Path and query, e.g. `/api/partner/v1/events`. */
  path: string;
  /** Lowercase header names. */
  headers: Readonly<Record<string, string>>;
  /** The exact bytes to send, the same for every attempt of one call. */
  body: Uint8Array | undefined;
  /**
   * The call's signal: the caller's, or the client's own ({@link TransportSettings}) when the
   * caller gave none. The transport rejects with its reason, or with the client's when `close()`
   * came first: it listens to both.
   */
  signal: AbortSignal;
}

/** The answer, read to its last byte (so a keep-alive socket can be reused). */
export interface TransportResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: Uint8Array;
}

/**
 * How the client core reaches the network: undici on Node, `fetch` elsewhere. A transport rejects
 * with its own error when no answer came, {@link TransportTimeoutError} past `timeoutMs` (body
 * included), `TransportResponseTooLargeError` past `maxResponseBytes`; the core turns each into a
 * `LoyaltyNetworkError`. Each attempt runs under one signal (`attemptSignal` in abort.ts).
 */
export interface Transport {
  request(request: TransportRequest): Promise<TransportResponse>;
  /** Releases sockets; the transport is not used again. */
  close(): Promise<void>;
}

/** What a build gives the transport factory. */
export interface TransportSettings {
  /** The client's logger, for what a transport must tell once (e.g. the Node build's fallback to fetch). */
  logger?: Logger | undefined;
  /** Most sockets to keep open to the service. */
  connections: number;
  /** Time one attempt may take, from the moment it is handed over to the last byte of the answer. */
  timeoutMs: number;
  /**
   * The most bytes of an answer's body to read: past it the transport closes the connection and
   * rejects with a `TransportResponseTooLargeError` (`body-limit.ts`).
   */
  maxResponseBytes: number;
  /**
   * The client's own signal, which `close()` aborts before it closes the transport. Each attempt
   * listens to it beside the request's signal (the caller's, when there is one).
   */
  closed: AbortSignal;
}

/** A transport error that the transport itself knows to be a timeout (connect, headers, body). */
export class TransportTimeoutError extends Error {
  // A literal, not `constructor.name`: minifiers rename classes.
  override get name(): 'TransportTimeoutError' {
    return 'TransportTimeoutError';
  }
}
