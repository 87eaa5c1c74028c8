// zod/mini, not the classic API: these primitives and the outbound schemas are all the receiver
// (an edge and browser entry) validates with, and classic zod alone is over its 24 KB budget.
// Mini schemas nest inside classic ones, so the inbound schemas keep the classic API.
import * as z from 'zod/mini';

/**
 * Field formats shared by every payload. The contract does not show maximum lengths or string
 * formats (section 2), so ids and names are only required to be non-empty strings.
 */
export const id = z.string().check(z.minLength(1, { error: 'must be a non-empty string' }));

/** ISO 8601 UTC timestamp with a `Z` suffix, as the contract requires for `occurredAt`. */
export const utcTimestamp = z.iso.datetime({
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
