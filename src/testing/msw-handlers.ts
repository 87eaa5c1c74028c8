import type { HttpHandler } from 'msw';
import type { EmulatorTransport } from './http-server.js';
import { PARTNER_BASE_PATH } from './request-router.js';

/**
 * msw handlers that answer every partner endpoint below `baseUrl` from the emulator, for code
 * under test that calls `fetch` directly. A fault that resets answers with msw's network error;
 * one that hangs waits until the caller aborts. msw is loaded on first use, so the testing entry
 * does not need it installed otherwise.
 */
export async function mswHandlersFor(transport: EmulatorTransport, baseUrl: string): Promise<HttpHandler[]> {
  const { http, HttpResponse } = await import('msw');
  const base = baseUrl.replace(/\/+$/, '');
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const pattern = `${base}${PARTNER_BASE_PATH}/*`;
  return [
    http.all(pattern, async ({ request }) => {
      const reply = await transport.handle(request, basePath);
      if (reply.kind === 'response') return reply.response;
      if (reply.kind === 'hang') await transport.released(request.signal);
      return HttpResponse.error();
    }),
  ];
}

/**
 * msw handlers that answer every partner endpoint below `baseUrl` from `emulator`, for code under
 * test that calls `fetch` itself. Same as `emulator.mswHandlers(baseUrl)`.
 *
 * @example
 * ```ts
 * import { setupServer } from 'msw/node';
 * import { createEmulator, createMswHandlers } from 'loyalty-partner-sdk/testing';
 *
 * const emulator = createEmulator();
 * const server = setupServer(...(await createMswHandlers(emulator, 'https://loyalty.example.test')));
 * server.listen({ onUnhandledRequest: 'bypass' });
 * ```
 */
export function createMswHandlers(
  emulator: { mswHandlers(baseUrl: string): Promise<HttpHandler[]> },
  baseUrl: string,
) {
  return emulator.mswHandlers(baseUrl);
}
