import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { listenHttp } from '../../platform-node/listen-http.js';
import { controlError, controlJson, controlRefusal } from '../../testing/control/request-guard.js';
import type { EmulatorResponse } from '../../testing/exchange.js';
import { ACTION_NAMES, type ActionName, runAction } from './actions.js';
import type { OpsBackends } from './connect.js';
import { dashboardHtml } from './dashboard-page.js';
import { readOverview } from './overview.js';

export interface DashboardOptions {
  readonly host: string;
  readonly port: number;
  /** Redeliver, replay and discard; without it every action is refused (403). */
  readonly allowActions: boolean;
  readonly actor: string;
  /** Host names besides localhost and IP addresses the page may be reached by. */
  readonly allowedHosts: readonly string[];
}

export interface DashboardServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_ACTION_BYTES = 4096;

/**
 * Serves the page, `GET api/overview` and, with `allowActions`, `POST api/actions`. Every request
 * passes the emulator control interface's guard first (a local or allowed `Host`, the page's own
 * `Origin`, JSON but for GET): another site open in the operator's browser cannot act through it.
 */
export async function startDashboard(
  backends: OpsBackends,
  options: DashboardOptions,
): Promise<DashboardServer> {
  const server = createServer((request, response) => {
    handle(backends, options, request)
      .catch((err: unknown) => controlError(500, 'INTERNAL', (err as Error)?.message ?? String(err)))
      .then((answer) => {
        if (!response.headersSent) response.writeHead(answer.status, answer.headers).end(answer.body);
      });
  });
  const { port, close } = await listenHttp(server, options.port, options.host);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${host}:${port}/`, close };
}

async function handle(
  backends: OpsBackends,
  options: DashboardOptions,
  request: IncomingMessage,
): Promise<EmulatorResponse> {
  const method = request.method ?? 'GET';
  const { pathname, searchParams } = new URL(request.url ?? '/', 'http://dashboard');
  const header = (name: string) => {
    const value = request.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  const refusal = controlRefusal(
    { method, pathname, search: '', header, body: async () => new Uint8Array() },
    options.allowedHosts,
  );
  if (refusal) return refusal;
  if (method === 'GET' && pathname === '/') {
    const nonce = randomBytes(16).toString('base64');
    const headers = {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    };
    return { status: 200, headers, body: dashboardHtml(nonce) };
  }
  if (method === 'GET' && pathname === '/api/overview') {
    const tenant = searchParams.get('tenant')?.trim() || undefined;
    return controlJson(200, await readOverview(backends, options.allowActions, tenant));
  }
  if (method === 'POST' && pathname === '/api/actions') {
    if (!options.allowActions)
      return controlError(
        403,
        'READ_ONLY',
        'This dashboard is read-only: start it with --allow-actions to redeliver, replay or discard',
      );
    const body = await readBody(request);
    const { action, eventId } = (body ?? {}) as { action?: unknown; eventId?: unknown };
    if (
      !ACTION_NAMES.includes(action as ActionName) ||
      typeof eventId !== 'string' ||
      eventId.length === 0 ||
      eventId.length > 200
    )
      return controlError(
        400,
        'INVALID_ACTION',
        `Send {"action": one of ${ACTION_NAMES.join(', ')}, "eventId": "<id>"}`,
      );
    const result = await runAction(backends, action as ActionName, eventId, {
      actor: options.actor,
      via: 'dashboard',
    });
    return controlJson(result.done ? 200 : 409, result);
  }
  return controlError(404, 'NOT_FOUND', `No ${method} ${pathname} here`);
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    total += (chunk as Buffer).length;
    if (total > MAX_ACTION_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
