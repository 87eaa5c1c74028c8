import type { OutboxControl } from './outbox-api.js';

/**
 * Wires the service's `IntegrationStatusChanged` webhook to the outbox: `Disabled` and
 * `Disconnected` stop the tenant's deliveries (the contract says the partner stops sending;
 * the stop survives restarts), `Enabled` resumes them. After `Disconnected` the tenant needs
 * fresh credentials: with `clientFor`, the outbox asks it for the tenant's client again on
 * resume; with a single `client`, call `outbox.resumeTenant(tenantId, { client })` yourself.
 * The webhook names the tenant by `X-TenantId`, so a single-client outbox should use that id as
 * its `defaultTenantId`. Use the result as `handlers.IntegrationStatusChanged` of `createReceiver`.
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * import { createOutbox, memoryStore, outboxStatusHandler } from 'loyalty-partner-sdk/outbox';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * const outbox = createOutbox({ client, store: memoryStore() });
 * const onStatus = outboxStatusHandler(outbox);
 * // createReceiver({ secrets, handlers: { IntegrationStatusChanged: onStatus } })
 * ```
 */
export function outboxStatusHandler(outbox: Pick<OutboxControl, 'stopTenant' | 'resumeTenant'>): (
  // The parts of the event and of the receiver's context it reads (structural: no webhooks import).
  event: { readonly payload: { readonly status: string } },
  ctx: { readonly tenantId: string },
) => Promise<void> {
  return async (event, ctx) => {
    const { status } = event.payload;
    // Without X-TenantId there is no tenant to act on; stopping a made-up one would help nobody.
    if (!ctx.tenantId) return;
    if (status === 'Enabled') await outbox.resumeTenant(ctx.tenantId);
    else if (status === 'Disabled' || status === 'Disconnected')
      await outbox.stopTenant(ctx.tenantId, status);
    // A status this version does not know changes nothing: guessing could stop a healthy tenant.
  };
}
