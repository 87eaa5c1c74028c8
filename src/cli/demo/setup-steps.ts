import { codeOf } from '../../internal/code-of.js';
import { samplePayload } from '../../testing/index.js';
import { plural } from '../io.js';
import type { DemoWorld } from './demo-world.js';
import { describeRefusal, failure } from './observe.js';
import type { Step } from './step-runner.js';

/** The merchant activates: its key works at once, but no webhook leaves before a signed event. */
export const activation: Step<DemoWorld> = {
  title: 'Activation: the merchant activates the integration; webhooks wait',
  async run(w, log) {
    const tenantId = w.merchant.tenantId;
    const before = await failure(w.client.checkConnection());
    log.expect('GET /connection before activation', codeOf(before), 'INTEGRATION_NOT_CONNECTED');
    log.note(`before activation: GET /connection -> ${describeRefusal(before)}`);
    w.emulator.activate(tenantId);
    const { status, body } = await w.client.checkConnection();
    const connection = (body as { connection?: string } | undefined)?.connection;
    log.expect('connection after activation', connection, 'AwaitingFirstSignedEvent');
    log.note(`merchant ${tenantId} activates: GET /connection -> ${status}, connection ${connection}`);
    log.note('  (unsigned: it confirms the API key only and starts nothing)');
    const queued = w.emulator.deliveries({ tenantId });
    log.expect(
      'webhooks queued',
      queued.map((d) => d.status),
      ['queued', 'queued', 'queued'],
    );
    log.expect('webhooks received', w.webhooks.length, 0);
    log.note(`${plural(queued.length, 'webhook')} queued: ${queued.map((d) => d.eventType).join(', ')}`);
  },
};

/** The first signed POST /events proves the credentials: the queued webhooks go out. */
export const firstSignedEvent: Step<DemoWorld> = {
  title: 'First signed event: BranchSynced starts delivery; the branch is confirmed',
  async run(w, log) {
    const tenantId = w.merchant.tenantId;
    const branch = samplePayload('BranchSynced');
    const result = await w.client.send('BranchSynced', branch);
    log.note(
      `POST /events BranchSynced ${branch.externalBranchId} -> ${result.status} in ${plural(result.attempts, 'attempt')}`,
    );
    await w.emulator.idle();
    log.expect('connection', w.emulator.merchant(tenantId).connection, 'Active');
    log.expect(
      'webhooks the receiver handled',
      w.webhooks.map((h) => h.eventType),
      ['IntegrationStatusChanged', 'LoyaltyRuleChanged', 'LoyaltyRuleChanged'],
    );
    log.expect(
      'delivery statuses',
      w.emulator.deliveries({ tenantId }).map((d) => d.status),
      ['delivered', 'delivered', 'delivered'],
    );
    log.note(`connection Active; the queued webhooks reached ${w.receiverUrl}, each signature verified:`);
    for (const hook of w.webhooks) {
      const payload = hook.payload as { status?: string; ruleType?: string; ruleVersion?: number };
      const what = payload.status ?? `${payload.ruleType} ruleVersion ${payload.ruleVersion}`;
      log.note(`  ${hook.eventType} (${what})`);
    }
    const confirmed = () =>
      w.emulator.merchant(tenantId).branches.find((b) => b.externalBranchId === branch.externalBranchId)
        ?.confirmed;
    log.expect('branch pairing before confirmation', confirmed(), false);
    w.emulator.confirmBranch(tenantId, branch.externalBranchId);
    log.expect('branch pairing after confirmation', confirmed(), true);
    log.note(`branch ${branch.externalBranchId} mapped; the merchant confirms the pairing in the dashboard`);
  },
};

/** Customer, product and coupon: what earns and coupon usages refer to. */
export const catalogueSync: Step<DemoWorld> = {
  title: 'Syncs: customer, product and coupon',
  async run(w, log) {
    const customer = samplePayload('CustomerSynced');
    const product = samplePayload('ProductSynced');
    const coupon = samplePayload('CouponSynced');
    const sent = [
      ['CustomerSynced', customer.externalCustomerId, await w.client.send('CustomerSynced', customer)],
      ['ProductSynced', product.externalProductId, await w.client.send('ProductSynced', product)],
      ['CouponSynced', coupon.externalCouponId, await w.client.send('CouponSynced', coupon)],
    ] as const;
    for (const [type, id, result] of sent) log.note(`POST /events ${type} ${id} -> ${result.status}`);
    const state = w.emulator.merchant(w.merchant.tenantId);
    log.expect(
      'mapped at the service',
      [
        state.customers.map((c) => c.externalCustomerId),
        state.products.map((p) => p.externalProductId),
        state.coupons.map((c) => c.externalCouponId),
      ],
      [[customer.externalCustomerId], [product.externalProductId], [coupon.externalCouponId]],
    );
  },
};
