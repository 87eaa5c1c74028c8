import { createReceiver, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  now,
  outboundEvent,
  resolveSecrets,
  SECRET,
  SECRETS,
  signedDelivery,
} from './support/deliveries.js';

const event = () => outboundEvent('IntegrationStatusChanged');

function receiverWith(secrets: Parameters<typeof createReceiver>[0]['secrets']) {
  const failures: ReceiverFailure[] = [];
  let runs = 0;
  const receiver = createReceiver({
    secrets,
    handlers: { IntegrationStatusChanged: () => void runs++ },
    onError: (err) => void failures.push(err),
  });
  return { receiver, failures, runs: () => runs };
}

describe('signature verification in the receiver', () => {
  it('answers 401 SIGNATURE_EXPIRED to an authentic delivery signed too long ago or in the future', async () => {
    const { receiver, runs } = receiverWith(SECRET);
    for (const timestamp of [now() - 301 - 60, now() + 301 + 60]) {
      const answer = await receiver.handle(signedDelivery(event(), { timestamp }));
      expect([answer.status, bodyOf(answer).code]).toEqual([401, 'SIGNATURE_EXPIRED']);
    }
    expect(runs()).toBe(0);
  });

  it('answers 401 INVALID_SIGNATURE, not SIGNATURE_EXPIRED, to a stale delivery that is also forged', async () => {
    const { receiver } = receiverWith(SECRET);
    const answer = await receiver.handle(
      signedDelivery(event(), { timestamp: now() - 3600, secret: 'whsec_forger' }),
    );
    expect(bodyOf(answer).code).toBe('INVALID_SIGNATURE');
  });

  it.each([
    ['a missing X-Signature', { signature: null }],
    ['garbage', { signature: 'garbage' }],
    ['no t=', { signature: `v1=${'a'.repeat(64)}` }],
    ['no v1=', { signature: `t=${now()}` }],
    ['a t= that is not digits', { signature: `t=1e9,v1=${'a'.repeat(64)}` }],
    ['a v1 under another secret', { secret: 'whsec_someone_else' }],
  ])('answers 401 INVALID_SIGNATURE to %s', async (_name, options) => {
    const { receiver, runs } = receiverWith(SECRET);
    const answer = await receiver.handle(signedDelivery(event(), options));
    expect([answer.status, bodyOf(answer).code]).toEqual([401, 'INVALID_SIGNATURE']);
    expect(runs()).toBe(0);
  });

  it('answers 401 INVALID_SIGNATURE to a body changed after signing', async () => {
    const { receiver } = receiverWith(SECRET);
    const delivery = signedDelivery(event());
    const tampered = { ...delivery, rawBody: delivery.rawBody.replace('Enabled', 'Disabled') };
    expect(bodyOf(await receiver.handle(tampered)).code).toBe('INVALID_SIGNATURE');
  });

  it('accepts a header with several v1 values when any one matches', async () => {
    const { receiver, runs } = receiverWith(SECRET);
    const delivery = signedDelivery(event(), { secret: ['whsec_retired', SECRET, 'whsec_next'] });
    expect((await receiver.handle(delivery)).status).toBe(200);
    expect(runs()).toBe(1);
  });

  it('verifies each tenant with its own rotated secrets, found by X-TenantId', async () => {
    const { receiver } = receiverWith(resolveSecrets);
    const oldSecretOfOne = signedDelivery(event(), {
      tenantId: 'merchant-1',
      secret: SECRETS['merchant-1'][1],
    });
    const secretOfTwo = signedDelivery(event(), { tenantId: 'merchant-2', secret: SECRETS['merchant-2'][0] });
    const crossed = signedDelivery(event(), { tenantId: 'merchant-2', secret: SECRETS['merchant-1'][0] });
    expect((await receiver.handle(oldSecretOfOne)).status).toBe(200);
    expect((await receiver.handle(secretOfTwo)).status).toBe(200);
    expect(bodyOf(await receiver.handle(crossed)).code).toBe('INVALID_SIGNATURE');
  });

  it('answers an unknown tenant exactly as a wrong signature, so tenants cannot be probed', async () => {
    const { receiver, failures } = receiverWith(resolveSecrets);
    const unknown = await receiver.handle(signedDelivery(event(), { tenantId: 'merchant-404' }));
    const wrong = await receiver.handle(signedDelivery(event(), { secret: 'whsec_wrong' }));
    expect(unknown.status).toBe(401);
    const { correlationId: _a, ...unknownBody } = bodyOf(unknown);
    const { correlationId: _b, ...wrongBody } = bodyOf(wrong);
    expect(unknownBody).toEqual(wrongBody);
    // onError still learns which it was.
    expect(failures.map((err) => 'reason' in err && err.reason)).toEqual(['no_secret', 'no_match']);
  });

  it('answers 401 INVALID_SIGNATURE without asking the resolver when X-TenantId is missing', async () => {
    const asked: string[] = [];
    const { receiver } = receiverWith((tenantId) => {
      asked.push(tenantId);
      return SECRET;
    });
    const answer = await receiver.handle(signedDelivery(event(), { tenantId: null }));
    expect(bodyOf(answer).code).toBe('INVALID_SIGNATURE');
    expect(asked).toEqual([]);
  });

  it('uses an async resolver, and takes the empty answers of one as "no secret"', async () => {
    const { receiver } = receiverWith(async (tenantId) => (tenantId === 'merchant-1' ? [SECRET] : []));
    expect((await receiver.handle(signedDelivery(event()))).status).toBe(200);
    const other = await receiver.handle(signedDelivery(event(), { tenantId: 'merchant-2' }));
    expect(bodyOf(other).code).toBe('INVALID_SIGNATURE');
  });

  it.each([
    [
      'rejects',
      async () => {
        throw new Error('vault sealed');
      },
    ],
    [
      'throws',
      () => {
        throw new Error('vault sealed');
      },
    ],
  ])(
    'answers 503 SECRETS_UNAVAILABLE, which the service retries, when the resolver %s',
    async (_how, resolver) => {
      const { receiver, failures, runs } = receiverWith(resolver);
      const answer = await receiver.handle(signedDelivery(event()));
      expect([answer.status, bodyOf(answer).code]).toEqual([503, 'SECRETS_UNAVAILABLE']);
      expect(answer.body).not.toContain('vault sealed');
      expect(failures[0]).toMatchObject({ code: 'SECRETS_UNAVAILABLE', cause: new Error('vault sealed') });
      expect(runs()).toBe(0);
    },
  );

  it('verifies a static secret even without X-TenantId, and reports the tenant as ""', async () => {
    const tenants: string[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: { IntegrationStatusChanged: (_event, ctx) => void tenants.push(ctx.tenantId) },
    });
    expect((await receiver.handle(signedDelivery(event(), { tenantId: null }))).status).toBe(200);
    expect(tenants).toEqual(['']);
  });
});
