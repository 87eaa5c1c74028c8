/**
 * NestJS (on its default Express platform) receiving the Loyalty service's webhooks.
 *
 * Two things matter:
 * 1. `NestFactory.create(AppModule, { rawBody: true })`: Nest parses JSON bodies before any
 *    controller runs; with `rawBody: true` it also keeps the exact bytes as `req.rawBody`, which
 *    the signature covers. Without it every delivery is answered 500 `RAW_BODY_UNAVAILABLE`, and
 *    the adapter logs that fix once.
 * 2. `@Res()`: the adapter writes the answer itself, so Nest must not.
 * 3. Optional: a global exception filter, so that a body Nest's JSON parser refuses is still
 *    answered by the receiver in the contract's error envelope, not in Nest's own error format.
 *
 * See main.ts beside this file.
 */

import type { ServerResponse } from 'node:http';
import { type ArgumentsHost, Catch, Controller, Module, Next, Post, Req, Res } from '@nestjs/common';
import { BaseExceptionFilter } from '@nestjs/core';
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

/**
 * A global exception filter that hands deliveries Nest's JSON parser refused (a body that is not
 * JSON) to the receiver, which verifies the bytes Nest kept (`rawBody: true`) and answers in the
 * contract's envelope. Other errors get Nest's usual handling.
 */
export function loyaltyWebhookExceptionFilter(
  receiver: Receiver,
  paths: readonly string[] = ['/loyalty/webhooks'],
  options: ExpressWebhookOptions = {},
) {
  const onWebhook = expressWebhook(receiver, { ...options, framework: 'nestjs' });

  @Catch()
  class LoyaltyWebhookExceptionFilter extends BaseExceptionFilter {
    override catch(exception: unknown, host: ArgumentsHost) {
      const http = host.switchToHttp();
      const req = http.getRequest<NodeRequest>();
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method === 'POST' && paths.includes(path)) {
        onWebhook(req, http.getResponse<ServerResponse>(), () => super.catch(exception, host));
        return;
      }
      super.catch(exception, host);
    }
  }
  return LoyaltyWebhookExceptionFilter;
}
