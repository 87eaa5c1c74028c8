import { request as httpRequest } from 'node:http';
import type { SignedDelivery } from '../../webhooks/support/deliveries.js';
import type { Target } from './targets.js';

/** What came back to a delivery sent slowly: the status and the parsed body. */
/** What came back to a delivery sent slowly: an answer, or the connection reset under it. */
export type SlowAnswer = { status: number; body: Record<string, unknown> } | { reset: true };

/**
 * Sends a delivery one byte at a time, a byte every `gapMs`, until the target answers: over a
 * socket to a loopback server (the way a slow client holds a connection), or as a `Request`
 * whose body stream trickles for a fetch handler called in process.
 */
export function sendSlowly(target: Target, delivery: SignedDelivery, gapMs = 50): Promise<SlowAnswer> {
  const bytes = Buffer.from(delivery.rawBody);
  const url = new URL(target.url);
  if (url.hostname !== '127.0.0.1') return sendStream(target, delivery, bytes, gapMs);
  return new Promise((resolve, reject) => {
    const headers = { ...delivery.headers, 'content-length': String(bytes.length) };
    const request = httpRequest(url, { method: 'POST', headers, agent: false });
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < bytes.length) request.write(bytes.subarray(sent, ++sent));
    }, gapMs);
    const settle = (answer: SlowAnswer | Error) => {
      clearInterval(drip);
      request.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        settle({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        }),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle(error.code === 'ECONNRESET' && sent < bytes.length ? { reset: true } : error),
    );
  });
}

async function sendStream(
  target: Target,
  delivery: SignedDelivery,
  bytes: Buffer,
  gapMs: number,
): Promise<SlowAnswer> {
  let sent = 0;
  let drip: ReturnType<typeof setInterval> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      drip = setInterval(() => {
        if (sent < bytes.length) controller.enqueue(bytes.subarray(sent, ++sent));
      }, gapMs);
    },
    cancel: () => clearInterval(drip),
  });
  const request = new Request(target.url, {
    method: 'POST',
    headers: delivery.headers,
    body,
    duplex: 'half',
  } as RequestInit);
  try {
    const response = await target.send(request);
    return { status: response.status, body: JSON.parse(await response.text()) };
  } finally {
    clearInterval(drip);
  }
}
