import type { z } from 'zod';
import { GENERIC_MESSAGE, issueMessage } from './issue-message.js';

/**
 * Base of every error this SDK throws for the Loyalty contract, so one `instanceof` catches them
 * all. Each subclass has a literal `code`, so `switch (err.code)` narrows.
 *
 * @example
 * ```ts
 * import { LoyaltyError } from 'loyalty-partner-sdk';
 * try {
 *   // ...
 * } catch (err) {
 *   if (err instanceof LoyaltyError) console.error(err.code, err.message);
 * }
 * ```
 */
export abstract class LoyaltyError extends Error {
  abstract readonly code: string;
}

/** The base class {@link codedError} returns: a {@link LoyaltyError} whose `name` is `Name`. */
export type CodedErrorClass<Name extends string> = abstract new (
  message: string,
  options?: { cause?: unknown },
) => LoyaltyError & { readonly name: Name };

/**
 * The one shape of a coded error: `class XError extends codedError('XError') { readonly code =
 * 'X_CODE'; }`. `name` is a literal because minifiers rename classes; the subclass adds its literal
 * `code` and the fields that say what to fix. Free of side effects, so bundlers drop unused ones.
 */
export /* @__NO_SIDE_EFFECTS__ */ function codedError<Name extends string>(
  name: Name,
): CodedErrorClass<Name> {
  abstract class Coded extends LoyaltyError {
    override get name(): Name {
      return name;
    }
  }
  return Coded;
}

/** One problem found in a payload or an option, with the path of the field at fault. */
export interface ValidationIssue {
  /** Dotted path of the field, e.g. `payload.items.3.price`; `''` for the value itself. */
  readonly path: string;
  readonly message: string;
}

/** Why a `LoyaltyValidationError` was raised. */
export type ValidationErrorCode =
  | 'INVALID_PAYLOAD'
  | 'UNKNOWN_EVENT_TYPE'
  | 'WRONG_EVENT_DIRECTION'
  | 'INVALID_REQUEST'
  | 'INVALID_OPTIONS';

/**
 * Refused before anything was sent: a payload or envelope that breaks the contract, an unknown or
 * outbound event type, a customer lookup with both or neither key, or invalid client options.
 * `issues` names every field at fault. Values are never copied into the message (they may be
 * personal data such as a phone number).
 *
 * @example
 * ```ts
 * import { createEnvelope, LoyaltyValidationError } from 'loyalty-partner-sdk';
 * try {
 *   createEnvelope('InvoiceEarned', {
 *     externalInvoiceId: 'inv-1', externalCustomerId: 'c-1', externalBranchId: 'b-1',
 *     subtotalAfterDiscountBeforeVat: 10, earnType: 'Stamps', channel: 'Pos',
 *   });
 * } catch (err) {
 *   if (err instanceof LoyaltyValidationError) console.log(err.issues[0]?.path); // 'payload.stampCardId'
 * }
 * ```
 */
export class LoyaltyValidationError extends codedError('LoyaltyValidationError') {
  readonly code: ValidationErrorCode;
  readonly issues: readonly ValidationIssue[];
  readonly eventType: string | undefined;

  constructor(
    code: ValidationErrorCode,
    summary: string,
    issues: readonly ValidationIssue[] = [],
    options: { eventType?: string | undefined; cause?: unknown } = {},
  ) {
    const detail = issues
      .map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message))
      .join('; ');
    super(
      detail ? `${summary}: ${detail}` : summary,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.issues = issues;
    this.eventType = options.eventType;
  }
}

/**
 * Turns zod issues into `ValidationIssue`s whose path starts with `prefix`. Given the `input`
 * that was parsed, a field that is absent reads "is required" rather than a type complaint.
 */
export function toValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  prefix: string,
  input?: unknown,
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      const message = 'is not a field of the contract (check its spelling)';
      for (const key of issue.keys) out.push({ path: base ? `${base}.${key}` : key, message });
    } else if (issue.code !== 'custom' && isAbsent(input, issue.path)) {
      out.push({ path: base, message: 'is required' });
    } else {
      // A parse without the SDK's error map (and no locale of the host's) leaves this generic text.
      const message = issue.message === GENERIC_MESSAGE ? issueMessage(issue) : issue.message;
      out.push({ path: base, message });
    }
  }
  return out;
}

function isAbsent(input: unknown, path: readonly PropertyKey[]): boolean {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return false;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value === undefined && path.length > 0;
}
