import { DEFAULT_RULES } from '../../testing/index.js';
import { plural } from '../io.js';
import { DEMO_DEFAULTS, type DemoWorld } from './demo-world.js';
import { balanceLine } from './observe.js';
import type { Step } from './step-runner.js';

const NEW_COST = 5;

/** The merchant changes the earn rate: a signed LoyaltyRuleChanged reaches the receiver. */
export const ruleChanged: Step<DemoWorld> = {
  title: `Rule change: 1 point per ${NEW_COST} riyals, delivered as a verified webhook`,
  async run(w, log) {
    const tenantId = w.merchant.tenantId;
    const from = w.webhooks.length;
    const ruleVersion = w.emulator.changeRule(tenantId, {
      ruleType: 'EarnRate',
      payload: { ...DEFAULT_RULES.earnRate, pointCostAmount: NEW_COST },
    });
    log.note(`the merchant changes the earn rate in the dashboard: ruleVersion ${ruleVersion}`);
    await w.emulator.idle();
    const handled = w.webhooks.slice(from);
    const versions = handled.map((h) => [h.eventType, (h.payload as { ruleVersion?: number }).ruleVersion]);
    log.expect('webhooks the receiver handled', versions, [['LoyaltyRuleChanged', ruleVersion]]);
    const [hook] = handled;
    if (!hook) return;
    const delivery = w.emulator.deliveries({ tenantId }).find((d) => d.eventId === hook.eventId);
    log.expect('delivery', [delivery?.status, delivery?.attempts.length], ['delivered', 1]);
    log.note(`LoyaltyRuleChanged eventId ${hook.eventId} delivered to ${w.receiverUrl}`);
    log.note(
      `X-Signature verified (secretIndex ${hook.secretIndex}, t=${hook.signatureTimestamp}); ` +
        `the LoyaltyRuleChanged handler ran for tenant ${hook.tenantId}`,
    );
    log.expect('rule cache', [hook.applied, hook.previousVersion], [true, 1]);
    log.note(
      `rule cache: ruleVersion ${ruleVersion} applied over ${hook.previousVersion} (only a newer one is)`,
    );
  },
};

/** What the service holds at the end of the day, from its own inspection API. */
export const dayClosed: Step<DemoWorld> = {
  title: 'Day closed: every sale credited once, every webhook delivered',
  async run(w, log) {
    const tenantId = w.merchant.tenantId;
    const earns = w.emulator.ledger(tenantId).filter((entry) => entry.kind === 'earn');
    log.expect(
      'invoices in the ledger',
      earns.map((e) => e.externalInvoiceId),
      ['inv-5001', 'inv-5002', 'inv-5003', 'inv-5004'],
    );
    log.expect('balance', w.emulator.balance(tenantId, DEMO_DEFAULTS.customerId), {
      points: 22,
      stamps: { 'card-coffee': 1 },
    });
    const deliveries = w.emulator.deliveries({ tenantId });
    log.expect(
      'undelivered webhooks',
      deliveries.filter((d) => d.status !== 'delivered').map((d) => d.eventType),
      [],
    );
    const outcomes = new Map<string, number>();
    for (const r of w.emulator.events({ tenantId }))
      outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
    const counted = [...outcomes].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
    log.note(`POST /events: ${counted}`);
    log.note(`ledger: ${plural(earns.length, 'earn')}, one per invoice; ${balanceLine(w)}`);
    const delivered = deliveries.filter((d) => d.status === 'delivered').length;
    log.note(`webhooks: ${delivered} delivered, ${w.webhooks.length} handled by the receiver`);
  },
};
