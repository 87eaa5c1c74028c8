import type { z } from 'zod';

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
const TYPE_NAMES: Record<string, string> = { boolean: 'true or false', nan: 'a number' };
const shown = (value: unknown) => (typeof value === 'string' ? `'${value}'` : String(value));

/** What zod/mini says for an issue whose schema has no message, when no locale is installed. */
export const GENERIC_MESSAGE = 'Invalid input';

/**
 * The SDK's error map: the message of a zod issue whose schema carries none, written from the
 * issue's fields, never from the input (it may be personal data). Passed per parse, so the host
 * application's zod configuration is neither read nor changed (`z.config(en())` would).
 */
export const sdkErrorMap = (issue: z.core.$ZodRawIssue): string => issueMessage(issue as z.core.$ZodIssue);

/** The message of an issue in the SDK's words; see {@link sdkErrorMap}. */
export function issueMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_NAMES[issue.expected] ?? article(issue.expected)}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${shown(issue.values[0])}`
        : `must be one of ${issue.values.map(shown).join(', ')}`;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `must have at least ${issue.minimum} ${issue.origin === 'string' ? 'characters' : 'items'}`
        : `must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `must have at most ${issue.maximum} ${issue.origin === 'string' ? 'characters' : 'items'}`
        : `must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    case 'invalid_union':
      return 'must match one of the allowed shapes';
    case 'unrecognized_keys':
      return `has unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.join(', ')} (check the spelling)`;
    default:
      return `is invalid (${issue.code})`;
  }
}
