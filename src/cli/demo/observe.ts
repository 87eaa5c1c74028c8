import { LoyaltyApiError } from '../../client/errors.js';
import type { RetryEvent } from '../../client/hooks.js';
import type { PayloadInput } from '../../contract/index.js';
import { codeOf } from '../../internal/code-of.js';
import { samplePayload } from '../../testing/index.js';
import { plural } from '../io.js';
import { DEMO_DEFAULTS, type DemoWorld } from './demo-world.js';

/** What the emulated service answers to a processed InvoiceEarned. */
export interface EarnAnswer {
  status: string;
  result?: { pointsEarned: number; stampsEarned: number; balance: number };
}

/** The rejection of a promise, or `undefined` when it resolved: for steps that expect a failure. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (err: unknown) => err,
  );
}

export function invoice(
  externalInvoiceId: string,
  subtotal: number,
  stampCardId?: string,
): PayloadInput<'InvoiceEarned'> {
  return {
    ...samplePayload('InvoiceEarned'),
    externalInvoiceId,
    subtotalAfterDiscountBeforeVat: subtotal,
    ...(stampCardId === undefined ? {} : { earnType: 'Stamps' as const, stampCardId }),
  };
}

/** `balance cust-1001: 12 points, card-coffee 1 stamp`, read from the service's ledger. */
export function balanceLine(world: DemoWorld): string {
  const { points, stamps } = world.emulator.balance(world.merchant.tenantId, DEMO_DEFAULTS.customerId);
  const cards = Object.entries(stamps).map(([card, n]) => `, ${card} ${plural(n, 'stamp')}`);
  return `balance ${DEMO_DEFAULTS.customerId}: ${plural(points, 'point')}${cards.join('')}`;
}

/** `attempt 1 -> 503 CONCURRENCY_CONFLICT; onRetry: attempt 2 in 13 ms, same eventId`. */
export function retryLine(event: RetryEvent): string {
  return (
    `attempt ${event.attempt} -> ${event.status ?? 'no answer'} ${event.code}; ` +
    `onRetry: attempt ${event.attempt + 1} in ${event.delayMs} ms, same eventId`
  );
}

/** `LoyaltyApiError 401 INTEGRATION_NOT_CONNECTED (fix-setup)` or the error's name. */
export function describeRefusal(err: unknown): string {
  if (err instanceof LoyaltyApiError) return `${err.name} ${err.status} ${err.code} (${err.action})`;
  return err instanceof Error ? `${err.name} ${codeOf(err)}`.trim() : 'no error';
}
