import { schemas } from '../contract/schemas/index.js';
import type { TransportResponse } from './transport.js';

/** An answer of the service, read once. */
export interface Answer {
  status: number;
  /** JSON when the body parses as JSON, else the text, `undefined` when empty. */
  body: unknown;
  /** From `X-Correlation-Id`, else from the body. */
  correlationId: string | undefined;
  /** The error envelope's `code` and `message`, when a non-2xx answer carried one. */
  code: string | undefined;
  message: string | undefined;
}

const decoder = new TextDecoder();

function parseBody(bytes: Uint8Array): unknown {
  if (bytes.length === 0) return undefined;
  const text = decoder.decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Decodes the body and, for a failure, the contract's error envelope (section 2.4). */
export function readAnswer(response: TransportResponse): Answer {
  const body = parseBody(response.body);
  const ok = response.status >= 200 && response.status < 300;
  const envelope = ok ? undefined : schemas.errorEnvelope.safeParse(body).data;
  const fromBody = (body as { correlationId?: unknown } | null | undefined)?.correlationId;
  return {
    status: response.status,
    body,
    correlationId:
      response.headers.get('x-correlation-id') ?? (typeof fromBody === 'string' ? fromBody : undefined),
    code: envelope?.code,
    message: envelope?.message,
  };
}
