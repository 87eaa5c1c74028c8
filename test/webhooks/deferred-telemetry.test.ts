import { createReceiver, memoryInbox } from 'loyalty-partner-sdk/webhooks';
import { expect, it } from 'vitest';
import { inMemoryOtelPerTest } from '../telemetry/support/otel.js';
import { outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

const otel = inMemoryOtelPerTest();

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

it('counts stored, handled, retried, dead and parked deliveries, traces each run, and gauges the inbox per state', async () => {
  let runs = 0;
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: memoryInbox(),
    deferred: true,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
    handlers: {
      LoyaltyRuleChanged: () => void runs++,
      IntegrationStatusChanged() {
        throw new Error('down');
      },
    },
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
  });
  await receiver.start();
  await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
  await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
  await receiver.handle(signedDelivery({ ...outboundEvent('LoyaltyRuleChanged'), schemaVersion: 2 }));
  await until(async () => {
    const stats = await receiver.stats();
    return stats.handled === 1 && stats.dead === 1;
  });
  const metrics = await otel.metrics();
  const counted = (metrics.get('loyalty.receiver.deferred') ?? []).map(
    (p) => `${p.attributes['loyalty.outcome']} ${p.attributes['messaging.destination.name']} ${p.value}`,
  );
  expect(counted.sort()).toEqual([
    'dead IntegrationStatusChanged 1',
    'handled LoyaltyRuleChanged 1',
    'parked LoyaltyRuleChanged 1',
    'retried IntegrationStatusChanged 1',
    'stored IntegrationStatusChanged 1',
    'stored LoyaltyRuleChanged 1',
  ]);
  const depth = (metrics.get('loyalty.receiver.inbox.depth') ?? []).map(
    (p) => `${p.attributes['loyalty.inbox.state']} ${p.value}`,
  );
  expect(depth.sort()).toEqual(['dead 1', 'handled 1', 'parked 1', 'pending 0']);
  const runSpans = otel.spans().filter((span) => span.attributes['loyalty.attempt'] !== undefined);
  expect(runSpans.map((span) => `${span.name} ${span.attributes['loyalty.outcome']}`).sort()).toEqual([
    'process IntegrationStatusChanged dead',
    'process IntegrationStatusChanged retried',
    'process LoyaltyRuleChanged handled',
  ]);
  expect(runs).toBe(1);
  await receiver.close();
});
