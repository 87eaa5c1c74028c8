import { isIP } from 'node:net';
import type { EmulatorRequest, EmulatorResponse } from '../exchange.js';

/**
 * Why a request to the control interface is refused before it is read, or `undefined`. Any web
 * page the developer opens can send requests to loopback: a `text/plain` POST needs no CORS
 * preflight, and a page on a domain that resolves to 127.0.0.1 (DNS rebinding) reaches the
 * emulator with its own name in `Host`. So a request is answered only when
 * - its `Host` is `localhost`, an IP address, or a name in `allowedHosts`;
 * - its `Origin`, when a browser sent one, is the emulator's own (`http://` + that `Host`);
 * - anything but GET and HEAD says `content-type: application/json`, which no page can send to
 *   another origin without a preflight the emulator never grants.
 * The `loyalty-partner` commands send no `Origin` and always JSON.
 */
export function controlRefusal(
  request: EmulatorRequest,
  allowedHosts: readonly string[],
): EmulatorResponse | undefined {
  const host = request.header('host');
  if (host !== null && !hostAllowed(host, allowedHosts))
    return controlError(
      403,
      'FORBIDDEN_HOST',
      `The control interface answers requests to localhost or an IP address only, not ${JSON.stringify(host)}: ` +
        'list other names in the listen option allowedHosts (--allow-host)',
    );
  const origin = request.header('origin');
  if (origin !== null && (host === null || origin.toLowerCase() !== `http://${host.toLowerCase()}`))
    return controlError(
      403,
      'FORBIDDEN_ORIGIN',
      'The control interface answers its own dashboard page only, not another origin',
    );
  if (request.method !== 'GET' && request.method !== 'HEAD' && !isJson(request.header('content-type')))
    return controlError(
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'A control action must be sent with content-type: application/json',
    );
  return undefined;
}

function hostAllowed(host: string, allowedHosts: readonly string[]): boolean {
  if (!URL.canParse(`http://${host}`)) return false;
  const { hostname } = new URL(`http://${host}`);
  const bare = hostname.replace(/^\[|\]$/g, '');
  return (
    hostname === 'localhost' ||
    isIP(bare) !== 0 ||
    allowedHosts.some((allowed) => allowed.toLowerCase() === hostname)
  );
}

const isJson = (contentType: string | null) =>
  contentType !== null && contentType.split(';')[0]?.trim().toLowerCase() === 'application/json';

/** A JSON answer of the control interface; never cached, since it shows live state. */
export const controlJson = (status: number, body: unknown): EmulatorResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  body: JSON.stringify(body),
});

/** A refusal of the control interface: `{ code, message }`. */
export const controlError = (status: number, code: string, message: string) =>
  controlJson(status, { code, message });
