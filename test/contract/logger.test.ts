import { describe, expect, it } from 'vitest';
import { isLogger, writeLog } from '../../src/contract/logger.js';
import { memoryLogger } from '../telemetry/support/otel.js';

describe('writeLog', () => {
  it('writes one object per line: message, event and the defined fields', () => {
    const logger = memoryLogger();
    writeLog(logger, 'warn', 'loyalty.client.retry', 'Retrying after TIMEOUT', {
      code: 'TIMEOUT',
      status: undefined,
    });
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        line: { message: 'Retrying after TIMEOUT', event: 'loyalty.client.retry', code: 'TIMEOUT' },
      },
    ]);
  });

  it('ignores a logger that throws or rejects', () => {
    const failing = {
      debug: () => Promise.reject(new Error('down')),
      info: () => undefined,
      warn: () => {
        throw new Error('down');
      },
      error: () => undefined,
    };
    expect(() => writeLog(failing, 'warn', 'e', 'm')).not.toThrow();
    expect(() => writeLog(failing, 'debug', 'e', 'm')).not.toThrow();
  });

  it('accepts console as a logger and refuses an object missing a method', () => {
    expect(isLogger(console)).toBe(true);
    expect(isLogger({ info() {}, warn() {}, error() {} })).toBe(false);
  });
});
