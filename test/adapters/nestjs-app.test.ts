import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import {
  loyaltyWebhookController,
  loyaltyWebhookExceptionFilter,
  loyaltyWebhookModule,
} from '../../examples/nestjs/webhook.controller.js';
import { appAdapterOptions, appReceiver, PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, type RunningApp } from '../apps/support/app-conformance.js';

async function nestApp(rawBody: boolean): Promise<RunningApp> {
  const lines: string[] = [];
  const options = appAdapterOptions((line) => lines.push(line));
  const receiver = appReceiver();
  const module = loyaltyWebhookModule(
    loyaltyWebhookController(receiver, WEBHOOK_PATH, options),
    loyaltyWebhookController(receiver, PARSED_PATH, options),
  );
  const app = await NestFactory.create(module, { rawBody, logger: false });
  const Filter = loyaltyWebhookExceptionFilter(receiver, [WEBHOOK_PATH, PARSED_PATH], options);
  app.useGlobalFilters(new Filter(app.getHttpAdapter()));
  await app.listen(0, '127.0.0.1');
  return {
    origin: (await app.getUrl()).replace('[::1]', '127.0.0.1'),
    output: () => lines.join('\n'),
    stop: () => app.close(),
  };
}

// NestJS on Express, with the examples/nestjs controller: Nest's JSON parser is in front of
// every route, and rawBody: true keeps the bytes.
describeAppConformance('NestJS on Express (rawBody: true)', () => nestApp(true), { expect: 'verified' });

describe('NestJS without rawBody: true', () => {
  it('answers 500 RAW_BODY_UNAVAILABLE naming the NestJS fix, and warns once', async () => {
    const app = await nestApp(false);
    try {
      const { signPayload } = await import('loyalty-partner-sdk/signature');
      const { APP_SECRET } = await import('../apps/fixtures/app-receiver.js');
      for (let attempt = 0; attempt < 2; attempt++) {
        const rawBody = JSON.stringify({ eventType: 'IntegrationStatusChanged' });
        const response = await fetch(`${app.origin}${WEBHOOK_PATH}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-tenantid': 'merchant-1',
            'x-signature': signPayload(rawBody, APP_SECRET),
          },
          body: rawBody,
        });
        const body = await response.json();
        expect([response.status, body.code]).toEqual([500, 'RAW_BODY_UNAVAILABLE']);
        expect(body.message).toContain('NestFactory.create(AppModule, { rawBody: true })');
      }
      expect(app.output().match(/\[app\] onError RAW_BODY_UNAVAILABLE NestJS/g)).toHaveLength(2);
      expect(app.output().match(/\[app\] warn .*rawBody: true/g)).toHaveLength(1);
    } finally {
      await app.stop();
    }
  });
});
