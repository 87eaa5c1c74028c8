import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import { createReceiver, memoryInbox, type ReceiverOptions } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

function creationError(options: unknown): LoyaltyValidationError {
  try {
    createReceiver(options as ReceiverOptions);
  } catch (err) {
    if (err instanceof LoyaltyValidationError) return err;
    throw err;
  }
  throw new Error('createReceiver accepted the options');
}

describe('createReceiver options', () => {
  it('refuses every broken option at once, in one INVALID_OPTIONS error naming each path', () => {
    const err = creationError({
      secrets: ['whsec_ok', ''],
      toleranceSeconds: Number.NaN,
      inbox: { begin() {}, complete() {} },
      handlers: { LoyaltyRuleChange: () => {}, InvoiceEarned: () => {}, IntegrationStatusChanged: 'log' },
      onUnhandled: 'ignore',
      onError: 42,
    });
    expect(err.code).toBe('INVALID_OPTIONS');
    expect(err.issues.map((issue) => issue.path)).toEqual([
      'secrets',
      'toleranceSeconds',
      'inbox',
      'handlers.LoyaltyRuleChange',
      'handlers.InvoiceEarned',
      'handlers.IntegrationStatusChanged',
      'onUnhandled',
      'onError',
    ]);
    expect(err.message).toContain('handlers.InvoiceEarned: is an event partners send to the service');
    expect(err.message).toContain('LoyaltyRuleChanged');
  });

  it('refuses missing options, an empty secret list and a negative tolerance', () => {
    expect(creationError(undefined).issues.map((issue) => issue.path)).toEqual(['secrets', 'handlers']);
    expect(creationError({ secrets: [], handlers: {} }).issues[0]?.path).toBe('secrets');
    expect(creationError({ secrets: 'whsec_x', handlers: {}, toleranceSeconds: -1 }).issues[0]?.path).toBe(
      'toleranceSeconds',
    );
  });

  it('never copies a secret into the error message', () => {
    const err = creationError({ secrets: ['whsec_do_not_print', 7], handlers: {} });
    expect(err.message).not.toContain('whsec_do_not_print');
  });

  it('accepts a string, a list and a resolver as secrets, and memoryInbox as inbox', () => {
    for (const secrets of [SECRET, [SECRET, 'whsec_old'], () => SECRET, async () => [SECRET]]) {
      expect(() => createReceiver({ secrets, handlers: {}, inbox: memoryInbox() })).not.toThrow();
    }
  });

  it('defaults to a 300 s tolerance, also when the option is given as undefined', async () => {
    const at = (age: number) =>
      signedDelivery(outboundEvent('IntegrationStatusChanged'), {
        timestamp: Math.floor(Date.now() / 1000) - age,
      });
    const receiver = createReceiver({ secrets: SECRET, handlers: {}, toleranceSeconds: undefined });
    expect((await receiver.handle(at(290))).status).toBe(200);
    expect(bodyOf(await receiver.handle(at(310))).code).toBe('SIGNATURE_EXPIRED');
  });

  it('gives each receiver without an inbox a fresh memory inbox of its own', async () => {
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
    const handlers = { IntegrationStatusChanged: () => {} };
    const first = createReceiver({ secrets: SECRET, handlers });
    const second = createReceiver({ secrets: SECRET, handlers, inbox: undefined });
    expect(bodyOf(await first.handle(delivery)).outcome).toBe('handled');
    expect(bodyOf(await second.handle(delivery)).outcome).toBe('handled');
    expect(bodyOf(await second.handle(delivery)).outcome).toBe('duplicate');
  });

  it('refuses timeouts that are not whole milliseconds a timer can wait', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
      const err = creationError({
        secrets: SECRET,
        handlers: {},
        resolverTimeoutMs: bad,
        handlerTimeoutMs: bad,
      });
      expect(err.issues.map((issue) => issue.path)).toEqual(['resolverTimeoutMs', 'handlerTimeoutMs']);
    }
  });

  it('refuses a handlerTimeoutMs not shorter than the inbox lease, so a running claim is never taken over', () => {
    const err = creationError({
      secrets: SECRET,
      handlers: {},
      inbox: memoryInbox({ leaseMs: 20_000 }),
      handlerTimeoutMs: 20_000,
    });
    expect(err.issues).toEqual([
      { path: 'handlerTimeoutMs', message: expect.stringContaining('leaseMs (20000)') },
    ]);
    expect(() =>
      createReceiver({
        secrets: SECRET,
        handlers: {},
        inbox: memoryInbox({ leaseMs: 20_000 }),
        handlerTimeoutMs: 19_999,
      }),
    ).not.toThrow();
    expect(
      creationError({ secrets: SECRET, handlers: {}, inbox: memoryInbox({ leaseMs: 10_000 }) }).issues[0]
        ?.path,
    ).toBe('handlerTimeoutMs');
  });

  it('uses toleranceSeconds: a 20 s old delivery fails under 10 s and passes under 30 s', async () => {
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'), {
      timestamp: Math.floor(Date.now() / 1000) - 20,
    });
    const strict = createReceiver({ secrets: SECRET, handlers: {}, toleranceSeconds: 10 });
    const lenient = createReceiver({ secrets: SECRET, handlers: {}, toleranceSeconds: 30 });
    expect(bodyOf(await strict.handle(delivery)).code).toBe('SIGNATURE_EXPIRED');
    expect((await lenient.handle(delivery)).status).toBe(200);
  });

  it('ignores handlers added to the options object after creation', async () => {
    const handlers: ReceiverOptions['handlers'] = {};
    const receiver = createReceiver({ secrets: SECRET, handlers });
    let ran = false;
    handlers.IntegrationStatusChanged = () => {
      ran = true;
    };
    await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(ran).toBe(false);
  });
});
