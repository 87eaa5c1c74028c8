import { createEmulator, EmulatorError } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';

describe('createEmulator options', () => {
  it('names every bad option in one INVALID_OPTIONS error, not just the first', () => {
    const attempt = () =>
      createEmulator({
        clock: 'sundial' as never,
        timeScale: 0,
        historyLimit: 2.5,
        latencyMs: -1,
        receiverUrl: 'ftp://receiver.example',
      });
    expect(attempt).toThrow(EmulatorError);
    expect(attempt).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message:
          "createEmulator: clock must be 'system' or 'manual'; timeScale must be a finite number > 0; " +
          'historyLimit must be a whole number > 0; latencyMs must be between 0 and 60000; ' +
          'receiverUrl must be an absolute http(s) URL',
      }),
    );
  });

  it('keeps the default of an option given as undefined: the system clock', async () => {
    const emulator = createEmulator({ clock: undefined, timeScale: undefined, environment: undefined });
    await expect(emulator.advance(1)).rejects.toMatchObject({ code: 'INVALID_OPERATION' });
    await emulator.close();
  });
});
