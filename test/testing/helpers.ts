import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEnvelope, type InboundEventType, type PayloadInput } from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';
import {
  createEmulator,
  type Emulator,
  type EmulatorOptions,
  type MerchantOptions,
  samplePayload,
} from 'loyalty-partner-sdk/testing';
import { afterEach } from 'vitest';

/** An answer of the emulator, read once. */
export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

const read = async (response: Response): Promise<Answer> => {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
};

/** An emulator listening on loopback, closed by `close()`. */
export async function startEmulator(options?: EmulatorOptions): Promise<{ emulator: Emulator; url: string }> {
  const emulator = createEmulator(options);
  const { url } = await emulator.listen();
  return { emulator, url };
}

export interface PostOptions {
  eventId?: string;
  /** Unix seconds for `t=`; default now. */
  timestamp?: number;
  /** Sign with this instead of the partner's secret; `null` sends no X-Signature. */
  secret?: string | string[] | null;
  /** Send this key instead; `null` sends no X-Api-Key. */
  apiKey?: string | null;
  correlationId?: string;
}

/**
 * A partner over raw HTTP: builds envelopes with the contract and signs them with the SDK.
 * `clock` gives the time to sign at (an emulator's manual clock); default the real time.
 */
export function partner(
  url: string,
  credentials: { apiKey: string; signingSecret: string },
  clock?: () => Date,
) {
  const headers = (rawBody: string, options: PostOptions) => {
    const h: Record<string, string> = { 'content-type': 'application/json' };
    const apiKey = options.apiKey === undefined ? credentials.apiKey : options.apiKey;
    if (apiKey !== null) h['x-api-key'] = apiKey;
    const secret = options.secret === undefined ? credentials.signingSecret : options.secret;
    const timestamp = options.timestamp ?? (clock ? Math.floor(clock().getTime() / 1000) : undefined);
    if (secret !== null)
      h['x-signature'] = signPayload(rawBody, secret, timestamp === undefined ? {} : { timestamp });
    return h;
  };
  const self = {
    async postRaw(rawBody: string, options: PostOptions = {}): Promise<Answer> {
      return read(
        await fetch(`${url}/api/partner/v1/events`, {
          method: 'POST',
          headers: headers(rawBody, options),
          body: rawBody,
        }),
      );
    },
    async post<T extends InboundEventType>(
      eventType: T,
      payload: PayloadInput<T>,
      options: PostOptions = {},
    ) {
      const envelope = createEnvelope(eventType, payload, {
        ...(options.eventId && { eventId: options.eventId }),
        ...(options.correlationId && { correlationId: options.correlationId }),
      });
      return { ...(await self.postRaw(JSON.stringify(envelope), options)), eventId: envelope.eventId };
    },
    async get(
      path: string,
      options: PostOptions & { extraHeaders?: Record<string, string> } = {},
    ): Promise<Answer> {
      const h = headers('', { ...options, secret: options.secret === undefined ? null : options.secret });
      delete h['content-type'];
      return read(
        await fetch(`${url}/api/partner/v1${path}`, { headers: { ...h, ...options.extraHeaders } }),
      );
    },
  };
  return self;
}

/** A merchant whose sample branch (confirmed) and sample customer are synced: earns pass every setup check. */
export async function readyMerchant(emulator: Emulator, url: string, options: MerchantOptions = {}) {
  const credentials = emulator.createMerchant(options);
  const p = partner(url, credentials, () => emulator.now());
  await p.post('BranchSynced', samplePayload('BranchSynced'));
  emulator.confirmBranch(credentials.tenantId, 'branch-olaya');
  await p.post('CustomerSynced', samplePayload('CustomerSynced'));
  return { ...credentials, partner: p };
}

/** An earn of `amount` riyals for the sample customer at the sample branch. */
export function earn(
  externalInvoiceId: string,
  amount: number,
  stampCardId: string | null = null,
): PayloadInput<'InvoiceEarned'> {
  return {
    ...samplePayload('InvoiceEarned'),
    externalInvoiceId,
    subtotalAfterDiscountBeforeVat: amount,
    earnType: stampCardId === null ? 'Points' : 'Stamps',
    stampCardId,
  };
}

/** One delivery as a scripted receiver saw it. */
export interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on loopback that records every delivery and answers with `script` (default 200).
 * `script` may return `'hang'` to never answer, or `'reset'` to drop the connection.
 */
export async function startReceiver(
  script: (hit: Hit, index: number) => { status: number; body?: unknown } | 'hang' | 'reset' = () => ({
    status: 200,
  }),
) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const hit = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      hits.push(hit);
      const answer = script(hit, hits.length - 1);
      if (answer === 'hang') return;
      if (answer === 'reset') return void req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  return { ...(await listenForWebhooks(server)), hits };
}

/** Starts `server` on a loopback port: the URL of its webhook path, and how to close it. */
export async function listenForWebhooks(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/loyalty/webhooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * For the tests of the calling suite: `start(options?)` starts an emulator on loopback (with the
 * suite's `defaults` unless given other options) and a recording receiver for its webhooks; both
 * are closed after the test.
 */
export function emulatorPerTest(defaults: EmulatorOptions = {}) {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const each of opened.splice(0)) await each.close();
  });
  return async (options: EmulatorOptions = defaults) => {
    const { emulator, url } = await startEmulator(options);
    opened.push(emulator);
    const receiver = await startReceiver();
    opened.push(receiver);
    return { emulator, url, receiver };
  };
}

/** The events of `eventType` delivered to `receiver` so far, parsed, in order. */
export function delivered(receiver: Receiver, eventType: string) {
  return receiver.hits.map((hit) => JSON.parse(hit.body)).filter((event) => event.eventType === eventType);
}

/** The events of `eventType` delivered to `receiver` once the emulator is idle. */
export async function deliveredOnceIdle(emulator: Emulator, receiver: Receiver, eventType: string) {
  await emulator.idle();
  return delivered(receiver, eventType);
}
