import { createEnvelope, type InboundEnvelope } from '../../contract/index.js';
import { DEFAULT_RULES, samplePayload } from '../../testing/index.js';
import { DEMO_DEFAULTS, type DemoWorld } from './demo-world.js';
import { balanceLine, type EarnAnswer, invoice } from './observe.js';
import type { Step } from './step-runner.js';

const [coffeeCard] = DEFAULT_RULES.stampCards;
const rate = DEFAULT_RULES.earnRate;

/** A sale earns points; the envelope is kept so that a later step can send it again. */
export const earnPoints: Step<DemoWorld> = {
  title: `Earn by points: invoice inv-5001, 86.96 riyals at ${rate.pointCostPoints} point per ${rate.pointCostAmount} riyals`,
  async run(w, log) {
    const envelope = createEnvelope('InvoiceEarned', invoice('inv-5001', 86.96)) as InboundEnvelope;
    const result = await w.client.sendEnvelope(envelope);
    w.sent.set('points-earn', { envelope, body: result.body });
    const answer = result.body as EarnAnswer;
    log.expect('earn result', answer.result, { pointsEarned: 8, stampsEarned: 0, balance: 8 });
    log.expect('points balance', w.emulator.balance(w.merchant.tenantId, DEMO_DEFAULTS.customerId).points, 8);
    log.note(`POST /events InvoiceEarned eventId ${envelope.eventId} -> ${result.status} ${answer.status}`);
    log.note(`+${answer.result?.pointsEarned} points; ${balanceLine(w)}`);
  },
};

/** A sale earns a stamp on the store's PerVisit card. */
export const earnStamps: Step<DemoWorld> = {
  title: `Earn by stamps: invoice inv-5002 on the ${coffeeCard.mode} card ${coffeeCard.stampCardId}`,
  async run(w, log) {
    const result = await w.client.send('InvoiceEarned', invoice('inv-5002', 18.5, coffeeCard.stampCardId));
    const answer = result.body as EarnAnswer;
    log.expect('earn result', answer.result, { pointsEarned: 0, stampsEarned: 1, balance: 1 });
    log.note(`POST /events InvoiceEarned (earnType Stamps) -> ${result.status} ${answer.status}`);
    log.note(`+${answer.result?.stampsEarned} stamp; ${balanceLine(w)}`);
  },
};

/** The merchant's coupon is redeemed on the stamp sale's invoice. */
export const couponUsed: Step<DemoWorld> = {
  title: 'Coupon used: coupon-10off redeemed on invoice inv-5002',
  async run(w, log) {
    const usage = { ...samplePayload('CouponUsed'), externalInvoiceId: 'inv-5002' };
    const result = await w.client.send('CouponUsed', usage);
    log.note(
      `POST /events CouponUsed ${usage.externalCouponId} on ${usage.externalInvoiceId} -> ${result.status}`,
    );
    const usages = w.emulator.merchant(w.merchant.tenantId).couponUsages;
    log.expect('coupon usages at the service', usages, [{ ...usage, status: 'Used' }]);
    log.note(`the service records the usage as ${usages[0]?.status}; ${balanceLine(w)}`);
  },
};
