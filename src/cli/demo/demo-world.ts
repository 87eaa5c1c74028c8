import { createServer } from 'node:http';
import { createNodeListener } from '../../adapters/node.js';
import type { RetryEvent } from '../../client/hooks.js';
import type { InboundEnvelope } from '../../contract/index.js';
import { LoyaltyClient } from '../../platform-node/index.js';
import { listenHttp } from '../../platform-node/listen-http.js';
import { createEmulator, type Emulator, type MerchantCredentials } from '../../testing/index.js';
import { createReceiver } from '../../webhooks/create-receiver.js';
import type { DeliveryContext, Envelope } from '../../webhooks/index.js';
import { createRuleCache } from '../../webhooks/rule-cache.js';

export const DEMO_DEFAULTS = {
  tenantId: 'cafe-olaya',
  customerId: 'cust-1001',
  webhookPath: '/loyalty/webhooks',
  /** Small backoff, so a retried 503 and a pause cost milliseconds, not seconds. */
  retry: { baseDelayMs: 20, maxDelayMs: 100 },
} as const;

/** A webhook the partner's receiver verified and handled. Holds no secret and no signature. */
export interface HandledWebhook {
  eventType: string;
  eventId: string;
  tenantId: string;
  payload: unknown;
  /** The authenticated `t=` of the delivery's X-Signature. */
  signatureTimestamp: number;
  secretIndex: number;
  /** For LoyaltyRuleChanged: whether the rule cache stored it (a greater ruleVersion). */
  applied?: boolean;
  /** For LoyaltyRuleChanged: the version the rule cache held before. */
  previousVersion?: number | undefined;
}

/** Everything the demo's steps act on: the service, the partner's client and its receiver. */
export interface DemoWorld {
  readonly emulator: Emulator;
  readonly client: LoyaltyClient;
  readonly merchant: MerchantCredentials;
  readonly emulatorUrl: string;
  readonly receiverUrl: string;
  readonly webhooks: HandledWebhook[];
  readonly retries: RetryEvent[];
  /** A step's own reaction to a retry (the pause step resumes the merchant from it). */
  onRetry: ((event: RetryEvent) => void) | undefined;
  /** Events sent earlier that a later step sends again, by name: the envelope and its answer. */
  readonly sent: Map<string, { envelope: InboundEnvelope; body: unknown }>;
  close(): Promise<void>;
}

/** The emulator, the partner's receiver and `LoyaltyClient` on loopback; the merchant not activated yet. */
export async function startDemoWorld(): Promise<DemoWorld> {
  const secrets = new Map<string, string>();
  const webhooks: HandledWebhook[] = [];
  const rules = createRuleCache();
  const seen = (event: Envelope, ctx: DeliveryContext, extra: Partial<HandledWebhook> = {}) =>
    webhooks.push({
      eventType: event.eventType,
      eventId: event.eventId,
      tenantId: ctx.tenantId,
      payload: event.payload,
      signatureTimestamp: ctx.signatureTimestamp,
      secretIndex: ctx.secretIndex,
      ...extra,
    });
  const receiver = createReceiver({
    secrets: (tenantId) => secrets.get(tenantId),
    handlers: {
      IntegrationStatusChanged: (event, ctx) => seen(event, ctx),
      LoyaltyRuleChanged: async (event, ctx) => seen(event, ctx, await rules.apply(event, ctx)),
    },
  });
  const server = createServer(createNodeListener(receiver));
  const { port, close: closeServer } = await listenHttp(server, 0, '127.0.0.1');
  const receiverUrl = `http://127.0.0.1:${port}${DEMO_DEFAULTS.webhookPath}`;
  const emulator = createEmulator();
  try {
    const { url: emulatorUrl } = await emulator.listen();
    const merchant = emulator.createMerchant({
      tenantId: DEMO_DEFAULTS.tenantId,
      activated: false,
      receiverUrl,
    });
    secrets.set(merchant.tenantId, merchant.signingSecret);
    const world: DemoWorld = {
      emulator,
      merchant,
      emulatorUrl,
      receiverUrl,
      webhooks,
      retries: [],
      onRetry: undefined,
      sent: new Map(),
      client: new LoyaltyClient({
        baseUrl: emulatorUrl,
        apiKey: merchant.apiKey,
        signingSecret: merchant.signingSecret,
        retry: DEMO_DEFAULTS.retry,
        hooks: {
          onRetry: (event) => {
            world.retries.push(event);
            world.onRetry?.(event);
          },
        },
      }),
      async close() {
        await world.client.close();
        await emulator.close();
        await closeServer();
      },
    };
    return world;
  } catch (err) {
    await emulator.close();
    await closeServer();
    throw err;
  }
}
