// zod/mini, not the classic API, for every schema of the contract: classic zod alone is over the
// browser budgets of the receiver (24 KB) and of the client (30 KB), which
// test/package/bundle-size.test.ts checks. Mini has the same checks and messages, as functions.

import * as z from 'zod/mini';
import { _isoDateTime } from 'zod/v4/core';

// No `z.config(...)` here or anywhere in the package: it would change the messages of the host
// application's own zod schemas. Messages zod/mini leaves generic are written by
// contract/issue-message.ts.

/** Any text a payload carries: a string PostgreSQL and every other store can keep as it is. */
export const text = z.string().check(
  // PostgreSQL's text cannot hold U+0000, and a lone surrogate is not UTF-8 at all: refused here,
  // before any store runs a statement inside the caller's transaction (a failed INSERT aborts it).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is exactly what is refused.
  z.regex(/^[^\u0000\uD800-\uDFFF]*$/u, {
    error: 'must not contain U+0000 or an unpaired surrogate (not storable as UTF-8 text)',
    abort: true,
  }),
);

/**
 * Field formats shared by every payload. The contract does not show maximum lengths or string
 * formats (section 2), so ids and names are only required to be non-empty, non-blank text.
 */
export const id = text.check(
  z.minLength(1, { error: 'must be a non-empty string', abort: true }),
  // A phone or a name of spaces is as empty as '' to anyone who reads it.
  z.regex(/\S/, { error: 'must not be blank (whitespace only)' }),
);

/**
 * ISO 8601 UTC timestamp with a `Z` suffix, as the contract requires for `occurredAt`. It is
 * `z.iso.datetime(...)`, written without the `iso` namespace object, which the bundler would
 * otherwise build with a helper module that every entry of the package then imports at start-up
 * (bench/import-time.mjs).
 */
export const utcTimestamp = _isoDateTime(z.ZodMiniISODateTime, {
  error: 'must be an ISO 8601 UTC timestamp such as 2026-11-20T09:13:20Z',
});

/** A finite decimal amount in riyals. Money is never negative in any payload of the contract. */
export const amount = z
  .number({ error: 'must be a finite number' })
  .check(z.nonnegative({ error: 'must not be negative' }));

/** A whole number within the safe integer range. */
export const integer = z.int({ error: 'must be an integer' });

/** A non-negative whole number (counts, versions, days). */
export const count = integer.check(z.nonnegative({ error: 'must not be negative' }));

/** A GUID in 8-4-4-4-12 hex form (any version), as the contract allows for `correlationId`. */
export const guid = z.guid({ error: 'must be a GUID (8-4-4-4-12 hex digits)' });

/** A UUID version 7, required for the `eventId` of events the partner sends. */
export const uuidV7 = z.uuid({ version: 'v7', error: 'must be a UUID version 7' });

/** Reports a broken rule on `field` of the object being checked, with the field's value as input. */
export function fieldIssue(ctx: z.core.ParsePayload<object>, field: string, message: string): void {
  const input = (ctx.value as Record<string, unknown>)[field];
  ctx.issues.push({ code: 'custom', input, path: [field], message });
}
