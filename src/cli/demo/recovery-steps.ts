import { CLIENT_DEFAULTS } from '../../client/options.js';
import {
  createEnvelope,
  ERROR_CODES,
  type InboundEventType,
  LoyaltyValidationError,
  type PayloadInput,
} from '../../contract/index.js';
import { codeOf } from '../../internal/code-of.js';
import { signPayload } from '../../platform-node/signature.js';
import { samplePayload } from '../../testing/index.js';
import { DEMO_DEFAULTS, type DemoWorld } from './demo-world.js';
import { balanceLine, type EarnAnswer, failure, invoice, retryLine } from './observe.js';
import type { Step } from './step-runner.js';

/** One injected 503: the client retries the same bytes, and the earn is credited once. */
export const retried503: Step<DemoWorld> = {
  title: 'Retried 503: one CONCURRENCY_CONFLICT, retried by the client',
  async run(w, log) {
    w.emulator.injectFaults({ kinds: ['CONCURRENCY_CONFLICT'], times: 1, endpoints: ['events'] });
    const from = w.retries.length;
    try {
      const result = await w.client.send('InvoiceEarned', invoice('inv-5003', 45));
      const retries = w.retries.slice(from);
      for (const retry of retries) log.note(retryLine(retry));
      const answer = result.body as EarnAnswer;
      log.note(`attempt ${result.attempts} -> ${result.status}: +${answer.result?.pointsEarned} points`);
      log.expect(
        'retries announced by onRetry',
        retries.map((r) => r.code),
        ['CONCURRENCY_CONFLICT'],
      );
      log.expect(
        'what the service saw of this eventId',
        w.emulator.events({ eventId: result.eventId }).map((r) => r.outcome),
        ['fault', 'processed'],
      );
      log.expect('earn result', answer.result, { pointsEarned: 4, stampsEarned: 0, balance: 12 });
      log.note(`credited once; ${balanceLine(w)}`);
    } finally {
      w.emulator.clearFaults();
    }
  },
};

/** The points sale's envelope again: the service replays its cached answer. */
export const duplicateReplayed: Step<DemoWorld> = {
  title: "Duplicate eventId: inv-5001's envelope sent again",
  async run(w, log) {
    const first = w.sent.get('points-earn');
    if (!log.expect('the points earn was sent before', first !== undefined, true) || !first) return;
    const tenantId = w.merchant.tenantId;
    const ledger = w.emulator.ledger(tenantId).length;
    const balance = w.emulator.balance(tenantId, DEMO_DEFAULTS.customerId);
    const replay = await w.client.sendEnvelope(first.envelope);
    log.note(`sendEnvelope, eventId ${replay.eventId} -> ${replay.status}, the first answer replayed`);
    log.expect('the answer', replay.body, first.body);
    log.expect(
      'what the service saw of this eventId',
      w.emulator.events({ eventId: first.envelope.eventId }).map((r) => r.outcome),
      ['processed', 'replayed'],
    );
    log.expect('ledger entries', w.emulator.ledger(tenantId).length, ledger);
    log.expect('balance', w.emulator.balance(tenantId, DEMO_DEFAULTS.customerId), balance);
    log.note(`the ledger did not change (${ledger} entries); ${balanceLine(w)}`);
  },
};

/** An outbound type is refused before sending; posted raw, the service refuses it too. */
export const outboundRefused: Step<DemoWorld> = {
  title: "Refused outbound type: LoyaltyRuleChanged is the service's to send",
  async run(w, log) {
    const payload = samplePayload('LoyaltyRuleChanged');
    const before = w.emulator.events().length;
    const local = await failure(
      w.client.send(
        'LoyaltyRuleChanged' as InboundEventType,
        payload as unknown as PayloadInput<InboundEventType>,
      ),
    );
    log.expect(
      'refused locally',
      local instanceof LoyaltyValidationError && local.code,
      'WRONG_EVENT_DIRECTION',
    );
    log.expect('requests sent', w.emulator.events().length, before);
    log.note(`client.send -> LoyaltyValidationError ${codeOf(local)}; nothing was sent`);
    // Posted by hand, signed like the client would, to show the service's own answer.
    const body = JSON.stringify(createEnvelope('LoyaltyRuleChanged', payload));
    const response = await fetch(`${w.emulatorUrl}${CLIENT_DEFAULTS.paths.events}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': w.merchant.apiKey,
        'x-signature': signPayload(body, w.merchant.signingSecret),
      },
      body,
    });
    const answer = (await response.json()) as { code?: string };
    log.expect(
      'the service answers a raw POST',
      [response.status, answer.code],
      [400, 'WRONG_EVENT_DIRECTION'],
    );
    const { action } = ERROR_CODES.WRONG_EVENT_DIRECTION;
    log.note(`posted raw: ${response.status} ${answer.code} (action ${action}: never retried)`);
  },
};

/** The merchant pauses: 503 INTEGRATION_PAUSED is retried until it resumes (from `onRetry`). */
export const pausedResumed: Step<DemoWorld> = {
  title: 'Paused, then resumed: 503 INTEGRATION_PAUSED retried until the merchant resumes',
  async run(w, log) {
    const tenantId = w.merchant.tenantId;
    w.emulator.pause(tenantId);
    log.note('the merchant pauses the integration');
    const from = w.retries.length;
    w.onRetry = () => {
      if (w.retries.length - from === 2) w.emulator.resume(tenantId);
    };
    try {
      const result = await w.client.send('InvoiceEarned', invoice('inv-5004', 50));
      const retries = w.retries.slice(from);
      for (const [i, retry] of retries.entries()) {
        log.note(retryLine(retry));
        if (i === 1) log.note('the merchant resumes (from the onRetry hook)');
      }
      const answer = result.body as EarnAnswer;
      log.note(
        `attempt ${result.attempts} -> ${result.status}: +${answer.result?.pointsEarned} points (50 riyals at the new rate)`,
      );
      log.expect(
        'retries announced by onRetry',
        retries.map((r) => r.code),
        ['INTEGRATION_PAUSED', 'INTEGRATION_PAUSED'],
      );
      log.expect('earn result at the new rate', answer.result, {
        pointsEarned: 10,
        stampsEarned: 0,
        balance: 22,
      });
      log.note(balanceLine(w));
    } finally {
      w.onRetry = undefined;
      w.emulator.resume(tenantId);
    }
  },
};
