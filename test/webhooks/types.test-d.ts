/*
 * Compile-only checks of the receiver's public types, run by `tsc --noEmit` (npm run typecheck).
 * Every `@ts-expect-error` line must fail to compile; if one compiled, tsc would report the unused
 * directive, so each line is a test that can fail.
 */
import {
  createReceiver,
  createRuleCache,
  type DeliveryContext,
  type Envelope,
  type InboxStore,
  memoryInbox,
  type SignatureVerificationError,
  type WebhookError,
  type WebhookErrorCode,
  type WebhookHandlers,
} from 'loyalty-partner-sdk/webhooks';

/** Exactly `B`: neither wider nor narrower (a plain assignment would accept `any`). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const exactly = <A, B>(_proof: Equal<A, B>) => {};

createReceiver({
  secrets: (tenantId: string) => (tenantId === 'merchant-1' ? ['whsec_new', 'whsec_old'] : undefined),
  handlers: {
    LoyaltyRuleChanged(event, ctx) {
      const version: number = event.payload.ruleVersion;
      const eventId: string = event.eventId;
      const tenant: string = ctx.tenantId;
      const signedAt: number = ctx.signatureTimestamp;
      const receivedAt: Date = ctx.receivedAt;
      if (event.payload.ruleType === 'StampRule') {
        const card: string = event.payload.payload.stampCardId;
        // @ts-expect-error a stamp rule has no earn method
        event.payload.payload.methodType;
        void card;
      } else {
        const method: 'OnPurchase' | 'OnVisit' = event.payload.payload.methodType;
        void method;
      }
      // @ts-expect-error a LoyaltyRuleChanged payload has no status
      event.payload.status;
      // @ts-expect-error misspelt field
      event.payload.ruleVersoin;
      // @ts-expect-error the envelope is typed by its event type
      const other: 'IntegrationStatusChanged' = event.eventType;
      void [version, eventId, tenant, signedAt, receivedAt, other];
    },
    IntegrationStatusChanged(event) {
      const status: 'Enabled' | 'Disabled' | 'Disconnected' = event.payload.status;
      // @ts-expect-error not a status of the contract
      const paused: typeof event.payload.status = 'Paused';
      void [status, paused];
    },
    RedemptionExpiredOrCancelled: async (event) => {
      const invoice: string | null = event.payload.externalInvoiceId;
      // @ts-expect-error externalInvoiceId may be null
      const always: string = event.payload.externalInvoiceId;
      void [invoice, always];
    },
    RefundReversalCompleted: (event) => event.payload.newBalance,
  },
  onUnhandled(event, ctx) {
    const reason: 'unknown-event-type' | 'unsupported-schema-version' | 'no-handler' = ctx.reason;
    const type: string = event.eventType;
    void [reason, type];
  },
  onError(err, ctx) {
    switch (err.code) {
      case 'SIGNATURE_EXPIRED':
        void err.reason;
        break;
      case 'INVALID_PAYLOAD':
        void err.issues;
        break;
      case 'HANDLER_FAILED':
        void err.eventId;
        break;
    }
    const status: number = ctx.status;
    void status;
  },
});

createReceiver({
  secrets: 'whsec_x',
  // @ts-expect-error a misspelt event type is not a handler name
  handlers: { LoyaltyRuleChange: () => {} },
});

createReceiver({
  secrets: 'whsec_x',
  // @ts-expect-error events partners send are never delivered to a receiver
  handlers: { InvoiceEarned: () => {} },
});

// @ts-expect-error handlers are required ({} for none)
createReceiver({ secrets: 'whsec_x' });

// @ts-expect-error a secret is a string, a list of strings or a resolver
createReceiver({ secrets: 42, handlers: {} });

const wrongPayload: WebhookHandlers = {
  // @ts-expect-error a handler typed for another event type does not fit
  IntegrationStatusChanged: (event: Envelope<'LoyaltyRuleChanged'>, _ctx: DeliveryContext) =>
    event.payload.ruleVersion,
};
void wrongPayload;

const rules = createRuleCache();
rules.get({ tenantId: 't', externalStoreId: 's', ruleType: 'StampRule', stampCardId: 'card-1' });
// @ts-expect-error a stamp rule is kept per stamp card
rules.get({ tenantId: 't', externalStoreId: 's', ruleType: 'StampRule' });
// @ts-expect-error only LoyaltyRuleChanged events carry rules
rules.apply({} as Envelope<'IntegrationStatusChanged'>);

// ctx.tx has the transaction type of a transactional inbox, inferred from `inbox`.
interface PoolClientLike {
  query(text: string, values?: unknown[]): Promise<unknown>;
}
declare const transactionalInbox: InboxStore<PoolClientLike>;
createReceiver({
  secrets: 'whsec_x',
  inbox: transactionalInbox,
  handlers: {
    async LoyaltyRuleChanged(event, ctx) {
      exactly<typeof ctx.tx, PoolClientLike>(true);
      await ctx.tx.query('insert into rules values ($1)', [event.payload.ruleVersion]);
    },
  },
  onUnhandled: (_event, ctx) => exactly<typeof ctx.tx, PoolClientLike>(true),
});

// Without a transactional inbox, ctx.tx is undefined: the default inbox, and memoryInbox().
createReceiver({
  secrets: 'whsec_x',
  handlers: {
    IntegrationStatusChanged(_event, ctx) {
      exactly<typeof ctx.tx, undefined>(true);
      // @ts-expect-error there is no transaction to query through
      ctx.tx.query('select 1');
    },
  },
});
createReceiver({
  secrets: 'whsec_x',
  inbox: memoryInbox(),
  handlers: { IntegrationStatusChanged: (_event, ctx) => exactly<typeof ctx.tx, undefined>(true) },
});

// One union of receiver codes; `switch (err.code)` narrows onError's argument to its class.
createReceiver({
  secrets: 'whsec_x',
  handlers: {},
  onError(err) {
    const code: WebhookErrorCode = err.code;
    switch (err.code) {
      case 'HANDLER_TIMEOUT':
        exactly<typeof err, WebhookError>(true);
        break;
      case 'INVALID_SIGNATURE':
        exactly<typeof err.reason, SignatureVerificationError['reason']>(true);
        break;
    }
    void code;
  },
});
