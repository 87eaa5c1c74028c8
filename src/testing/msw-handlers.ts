import { answerWebRequest, type EmulatorTransport } from './exchange.js';
import { PARTNER_BASE_PATH } from './request-router.js';

/**
 * An msw request handler: msw's `HttpHandler`, as `setupServer(...)` and `setupWorker(...)` take
 * it. Named loosely on purpose: msw is an optional peer, and naming its class here would make
 * this entry's types fail to compile (TS2307) for every project without msw installed. msw's own
 * handler classes have private members, so no structural type could stand in for them.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; the value is msw's HttpHandler
export type MswHandler = any;

/**
 * msw handlers that answer every partner endpoint below `baseUrl` from the emulator, for code
 * under test that calls `fetch` directly. A fault that resets answers with msw's network error;
 * one that hangs waits until the caller aborts. msw is loaded on first use, so the testing entry
 * does not need it installed otherwise.
 */
export async function mswHandlersFor(transport: EmulatorTransport, baseUrl: string): Promise<MswHandler[]> {
  const { http, HttpResponse } = await import('msw');
  const base = baseUrl.replace(/\/+$/, '');
  const basePath = new URL(base).pathname.replace(/\/+$/, '');
  const pattern = `${base}${PARTNER_BASE_PATH}/*`;
  return [
    http.all(
      pattern,
      async ({ request }) => (await answerWebRequest(transport, request, basePath)) ?? HttpResponse.error(),
    ),
  ];
}
