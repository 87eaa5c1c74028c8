import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import {
  loyaltyWebhookController,
  loyaltyWebhookExceptionFilter,
  loyaltyWebhookModule,
} from './webhook.controller.js';

const receiver = createReceiver({
  secrets: process.env.LOYALTY_SECRET ?? '',
  handlers: { LoyaltyRuleChanged: (event) => console.info('rule', event.payload.ruleType) },
});
// rawBody: true keeps the exact bytes the signature covers, next to Nest's parsed JSON body.
const app = await NestFactory.create(loyaltyWebhookModule(loyaltyWebhookController(receiver)), {
  rawBody: true,
});
// Optional: bodies Nest's JSON parser refuses are answered in the contract's envelope too.
const Filter = loyaltyWebhookExceptionFilter(receiver, ['/loyalty/webhooks']);
app.useGlobalFilters(new Filter(app.getHttpAdapter()));
await app.listen(3000);
