import { createEmulator, EmulatorError } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('the emulator over HTTP', () => {
  const emulator = createEmulator({ clock: 'manual', startTime: new Date('2026-11-20T09:00:00Z') });
  afterEach(() => emulator.clearFaults());

  it('listens on loopback on a free port, and a second listen returns the same URL', async () => {
    const { url } = await emulator.listen();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await emulator.listen()).url).toBe(url);
    expect(emulator.url).toBe(url);
  });

  it('stays on loopback when host is given as undefined', async () => {
    const other = createEmulator();
    try {
      const { url } = await other.listen({ host: undefined, port: undefined });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await other.close();
    }
  });

  it('sends a Date header from the service clock and an X-Correlation-Id on every answer', async () => {
    const { url } = await emulator.listen();
    await emulator.advance(90_000);
    const response = await fetch(`${url}/api/partner/v1/connection`);
    const body = await response.json();
    expect(response.headers.get('date')).toBe('Fri, 20 Nov 2026 09:01:30 GMT');
    expect(body).toEqual({
      code: 'MISSING_API_KEY',
      message: expect.any(String),
      correlationId: response.headers.get('x-correlation-id'),
    });
  });

  it('answers 404 NOT_FOUND outside the partner endpoints and 405 to a wrong method', async () => {
    const { url } = await emulator.listen();
    const missing = await fetch(`${url}/api/partner/v1/points`);
    const wrong = await fetch(`${url}/api/partner/v1/events`);
    expect([missing.status, (await missing.json()).code]).toEqual([404, 'NOT_FOUND']);
    expect([wrong.status, (await wrong.json()).code, wrong.headers.get('allow')]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'POST',
    ]);
  });

  it('refuses advance() on the system clock and listen() after close', async () => {
    const real = createEmulator();
    await expect(real.advance(1)).rejects.toThrow(EmulatorError);
    await emulator.close();
    await expect(emulator.listen()).rejects.toThrow(/closed/);
  });

  it('drops hung connections on close', async () => {
    const other = createEmulator();
    const { url } = await other.listen();
    const m = other.createMerchant();
    other.injectFaults({ kinds: ['timeout'] });
    const hung = fetch(`${url}/api/partner/v1/connection`, { headers: { 'x-api-key': m.apiKey } });
    await vi.waitFor(() => expect(other.requests()).toHaveLength(1));
    await other.close();
    await expect(hung).rejects.toThrow(TypeError);
  });
});
