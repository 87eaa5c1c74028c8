import type { IncomingHttpHeaders } from 'node:http';
import { createReceiver, type RawDelivery } from 'loyalty-partner-sdk/webhooks';

type HeadersLike = RawDelivery['headers'];

import { describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, resolveSecrets, signedDelivery } from './support/deliveries.js';

describe('delivery headers', () => {
  const receiver = () => {
    const tenants: string[] = [];
    const instance = createReceiver({
      secrets: resolveSecrets,
      handlers: {
        IntegrationStatusChanged: (_event, ctx) => void tenants.push(`${ctx.tenantId} ${ctx.correlationId}`),
      },
    });
    return { instance, tenants };
  };

  it('are read from a Web Headers, a Node IncomingHttpHeaders and a record in any letter case', async () => {
    const { instance, tenants } = receiver();
    const shapes: ((headers: Record<string, string>) => HeadersLike)[] = [
      (headers) => new Headers(headers),
      (headers): IncomingHttpHeaders =>
        ({ ...headers, 'x-correlation-id': [headers['x-correlation-id']!] }) as never,
      (headers) => ({
        'X-Signature': headers['x-signature'],
        'X-TENANTID': headers['x-tenantid'],
        'X-Correlation-Id': headers['x-correlation-id'],
      }),
    ];
    for (const [index, shape] of shapes.entries()) {
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'), {
        correlationId: `corr-${index}`,
      });
      const answer = await instance.handle({ rawBody: delivery.rawBody, headers: shape(delivery.headers) });
      expect(answer.status).toBe(200);
    }
    expect(tenants).toEqual(['merchant-1 corr-0', 'merchant-1 corr-1', 'merchant-1 corr-2']);
  });

  it('refuse a doubled X-Signature as malformed instead of picking one copy', async () => {
    const { instance } = receiver();
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
    const signature = delivery.headers['x-signature']!;
    const answer = await instance.handle({
      rawBody: delivery.rawBody,
      headers: { ...delivery.headers, 'x-signature': [signature, signature] },
    });
    expect([answer.status, bodyOf(answer).code]).toEqual([401, 'INVALID_SIGNATURE']);
  });
});
