/**
 * Any logger with the four usual methods: `console`, pino, winston, bunyan. The SDK writes one
 * structured object per line: `{ message, event, ...fields }`, where `event` names what happened
 * (`loyalty.client.retry`, `loyalty.outbox.parked`, ...). Secrets, API keys, signatures and
 * payload values are never among the fields. A logger that throws is ignored.
 *
 * @example
 * ```ts
 * import { LoyaltyClient, type Logger } from 'loyalty-partner-sdk';
 * const logger: Logger = console;
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret', logger });
 * ```
 */
export interface Logger {
  debug(...args: never[]): unknown;
  info(...args: never[]): unknown;
  warn(...args: never[]): unknown;
  error(...args: never[]): unknown;
}

const LEVELS = ['debug', 'info', 'warn', 'error'] as const;
/** The level of a log line. */
export type LogLevel = (typeof LEVELS)[number];

/** Field values of a log line: ids, codes, counts, durations. Never a secret or a payload value. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** True for an object with the four methods of a {@link Logger}. */
export function isLogger(value: unknown): value is Logger {
  const candidate = value as Partial<Record<LogLevel, unknown>> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    LEVELS.every((level) => typeof candidate[level] === 'function')
  );
}

/**
 * Writes one line: `{ message, event, ...fields }`, fields that are `undefined` left out. One
 * object argument suits every logger: pino and bunyan log its fields, winston takes `message`
 * as the message, and `console` prints the object.
 */
export function writeLog(
  logger: Logger | undefined,
  level: LogLevel,
  event: string,
  message: string,
  fields: LogFields = {},
): void {
  if (!logger) return;
  const line: Record<string, string | number | boolean> = { message, event };
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) line[key] = value;
  }
  try {
    const result: unknown = (logger[level] as (line: object) => unknown).call(logger, line);
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // Logging must never fail a send or a delivery.
  }
}
