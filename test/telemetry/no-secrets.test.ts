import { createOutbox, memoryStore } from 'loyalty-partner-sdk/outbox';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { API_KEY, clientFor, invoice, SECRET } from '../client/support/client-fixture.js';
import { fail, ok } from '../client/support/scripted-server.js';
import { outboundEvent, SECRETS, signedDelivery } from '../webhooks/support/deliveries.js';
import { memoryLogger, serverAndOtelPerTest } from './support/otel.js';

const env = serverAndOtelPerTest();

// A payload value that must stay out of telemetry as much as a secret.
const CUSTOMER = 'cust-private-5550199';

describe('telemetry of a full run', () => {
  it('holds no API key, signing secret, signature or payload value in any span, metric or log line', async () => {
    const { tracerProvider, meterProvider } = env.otel;
    const logger = memoryLogger();
    const telemetry = { tracerProvider, meterProvider, logger };
    // Retries, a refusal, a credentials refusal, then success: every path that writes something.
    env.server.script = (req, res, index) => {
      if (index === 0) return fail(res, 503, 'SERVICE_UNAVAILABLE');
      if (req.body.toString().includes('"inv-bad"')) {
        return fail(res, 400, 'CUSTOMER_MAPPING_NOT_FOUND');
      }
      if (index === 3) return fail(res, 401, 'INVALID_API_KEY');
      return ok(res);
    };
    const client = clientFor(env.server, telemetry);
    const payload = (id: string) => ({ ...invoice(id), externalCustomerId: CUSTOMER });
    await client.send('InvoiceEarned', payload('inv-1'));
    await expect(client.send('InvoiceEarned', payload('inv-bad'))).rejects.toThrow();
    await expect(client.send('InvoiceEarned', payload('inv-2'), {})).rejects.toThrow();
    await client.lookupCustomer({ phone: '+966500000000' }).catch(() => undefined);

    const outbox = createOutbox({ client, store: memoryStore(), ...telemetry, retryDelayMs: 60_000 });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', payload('inv-3'));
    await outbox.enqueue('InvoiceEarned', payload('inv-bad'));
    await outbox.flush();
    await outbox.close();
    await client.close();

    const receiverSecret = SECRETS['merchant-1'][0];
    const receiver = createReceiver({
      secrets: (tenantId) => (tenantId === 'merchant-1' ? [receiverSecret] : undefined),
      handlers: { LoyaltyRuleChanged: () => undefined },
      ...telemetry,
    });
    const delivery = signedDelivery(outboundEvent('LoyaltyRuleChanged'), { secret: receiverSecret });
    await receiver.handle(delivery);
    await receiver.handle(delivery);
    const forged = signedDelivery(outboundEvent('LoyaltyRuleChanged'), { secret: 'whsec_forged_by_someone' });
    await receiver.handle(forged);
    expect(() => clientFor(env.server, { logger, signingSecret: ['', SECRET] })).toThrow();

    const spans = env.otel.spans().map((span) => ({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      status: span.status,
      links: span.links.map((link) => link.attributes),
    }));
    const metrics = [...(await env.otel.metrics()).entries()];
    const recorded = JSON.stringify({ spans, metrics, logs: logger.lines });

    const signatures = [
      ...env.server.requests.map((request) => request.headers['x-signature']),
      delivery.headers['x-signature'],
      forged.headers['x-signature'],
    ].flatMap((header) => String(header).split(','));
    const digests = signatures.map((part) => part.replace(/^[tv]\d*=/, '')).filter((d) => d.length === 64);
    // The run recorded something on every path, so finding nothing means something.
    expect(spans.length).toBeGreaterThan(12);
    expect(logger.lines.length).toBeGreaterThan(5);
    expect(digests.length).toBeGreaterThan(6);
    for (const secret of [
      API_KEY,
      SECRET,
      receiverSecret,
      'whsec_forged_by_someone',
      CUSTOMER,
      '966500000000',
      ...digests,
    ]) {
      expect(recorded).not.toContain(secret);
    }
  });
});
