/**
 * NestJS (on its default Express platform) receiving the Loyalty service's webhooks.
 *
 * Two things matter:
 * 1. `NestFactory.create(AppModule, { rawBody: true })`: Nest parses JSON bodies before any
 *    controller runs; with `rawBody: true` it also keeps the exact bytes as `req.rawBody`, which
 *    the signature covers. Without it every delivery is answered 500 `RAW_BODY_UNAVAILABLE`, and
 *    the adapter logs that fix once.
 * 2. `@Res()`: the adapter writes the answer itself, so Nest must not.
 *
 *   const app = await NestFactory.create(loyaltyWebhookModule(receiver), { rawBody: true });
 *   await app.listen(3000);
 */

import type { ServerResponse } from 'node:http';
import { Controller, Module, Next, Post, Req, Res } from '@nestjs/common';
import { type ExpressWebhookOptions, expressWebhook, type NodeRequest } from 'loyalty-partner-sdk/express';
import type { Receiver } from 'loyalty-partner-sdk/webhooks';

/** A controller class serving `receiver` at POST `path`. */
export function loyaltyWebhookController(
  receiver: Receiver,
  path = 'loyalty/webhooks',
  options: ExpressWebhookOptions = {},
) {
  const onWebhook = expressWebhook(receiver, { ...options, framework: 'nestjs' });

  @Controller(path)
  class LoyaltyWebhookController {
    @Post()
    receive(@Req() req: NodeRequest, @Res() res: ServerResponse, @Next() next: (error?: unknown) => void) {
      onWebhook(req, res, next);
    }
  }
  return LoyaltyWebhookController;
}

/** A module holding one webhook controller per route given. */
export function loyaltyWebhookModule(...controllers: ReturnType<typeof loyaltyWebhookController>[]) {
  @Module({ controllers })
  class LoyaltyWebhookModule {}
  return LoyaltyWebhookModule;
}
