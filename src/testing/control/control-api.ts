import type { Emulator, ShippableEventType } from '../emulator-api.js';
import { EmulatorError } from '../emulator-error.js';
import type { EmulatorRequest, EmulatorResponse } from '../exchange.js';
import type { FaultOptions } from '../faults.js';
import type { MerchantOptions } from '../merchant-store.js';
import type { RuleChange } from '../rules.js';
import type { ControlDeps } from './control-deps.js';
import { DASHBOARD_HTML } from './dashboard-page.js';
import { dashboardState } from './dashboard-state.js';
import { controlError, controlJson, controlRefusal } from './request-guard.js';

/**
 * The path the running emulator reserves for itself: the dashboard page at `/__emulator/`, its
 * state at `/__emulator/state`, and the merchant's actions as `POST /__emulator/...` (what the
 * `loyalty-partner merchant`, `ship`, `faults` and `latency` commands call). Never a partner path.
 */
export const CONTROL_BASE_PATH = '/__emulator';

export const isControlPath = (pathname: string): boolean =>
  pathname === CONTROL_BASE_PATH || pathname.startsWith(`${CONTROL_BASE_PATH}/`);

const MERCHANT_ACTIONS: Record<string, (e: Emulator, tenantId: string) => unknown> = {
  pause: (e, t) => e.pause(t),
  resume: (e, t) => e.resume(t),
  enable: (e, t) => e.setStatus(t, 'Enabled'),
  disable: (e, t) => e.setStatus(t, 'Disabled'),
  disconnect: (e, t) => e.setStatus(t, 'Disconnected'),
  reconnect: (e, t) => e.reconnect(t),
  activate: (e, t) => e.activate(t),
  'lapse-subscription': (e, t) => e.lapseSubscription(t),
  'renew-subscription': (e, t) => e.renewSubscription(t),
  'complete-rotation': (e, t) => e.completeRotation(t),
};

/** The names of the merchant actions `POST /__emulator/merchants/<tenantId>/<action>` takes. */
export const MERCHANT_CONTROL_ACTIONS: readonly string[] = Object.keys(MERCHANT_ACTIONS);

const STATUS_OF: Record<string, number> = {
  UNKNOWN_TENANT: 404,
  UNKNOWN_REDEMPTION: 404,
  TENANT_EXISTS: 409,
};

async function bodyOf<T>(request: EmulatorRequest): Promise<T> {
  const text = new TextDecoder().decode(await request.body());
  if (text === '') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    // Answered 400 INVALID_REQUEST with this message, as any refused input is.
    throw new Error('The body is not valid JSON');
  }
}

/** Answers one request under `/__emulator`: the page, the state, or an action. */
export async function handleControl(request: EmulatorRequest, deps: ControlDeps): Promise<EmulatorResponse> {
  const refused = controlRefusal(request, deps.allowedHosts());
  if (refused) return refused;
  const path = request.pathname.slice(CONTROL_BASE_PATH.length).replace(/\/+$/, '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  try {
    const result = await dispatch(request.method, parts, request, deps);
    // The page and the state are answers already; an action's result becomes `{ ok: true, ... }`.
    const answered = 'status' in result && 'body' in result;
    return answered ? (result as EmulatorResponse) : controlJson(200, { ok: true, ...result });
  } catch (err) {
    if (err instanceof EmulatorError) return controlError(STATUS_OF[err.code] ?? 400, err.code, err.message);
    // A body, rule or fault plan the emulator's own parsers refused: the caller's input, not a crash.
    return controlError(400, 'INVALID_REQUEST', (err as Error).message ?? String(err));
  }
}

async function dispatch(
  method: string,
  parts: string[],
  request: EmulatorRequest,
  deps: ControlDeps,
): Promise<EmulatorResponse | Record<string, unknown>> {
  const { emulator } = deps;
  const [first, tenantId, action, branchId, branchAction] = parts;
  const is = (m: string, length: number) => method === m && parts.length === length;
  if (is('GET', 0))
    return {
      status: 200,
      headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
      body: DASHBOARD_HTML,
    };
  if (first === 'state' && is('GET', 1)) return controlJson(200, dashboardState(deps));
  if (first === 'requests' && is('GET', 1)) {
    const eventId = new URLSearchParams(request.search).get('eventId') ?? undefined;
    return controlJson(200, { requests: emulator.requests({ eventId }).slice(-50) });
  }
  if (first === 'merchants' && is('POST', 1))
    return { merchant: emulator.createMerchant(await bodyOf<MerchantOptions>(request)) };
  if (first === 'merchants' && tenantId !== undefined && action !== undefined) {
    const run = MERCHANT_ACTIONS[action];
    if (run && is('POST', 3)) {
      const credentials = run(emulator, tenantId);
      return { merchant: emulator.merchant(tenantId), ...(credentials ? { credentials } : {}) };
    }
    if (action === 'rules' && is('POST', 3)) {
      const ruleVersion = emulator.changeRule(tenantId, await bodyOf<RuleChange>(request));
      return { ruleVersion: ruleVersion ?? null };
    }
    if (action === 'receiver-url' && is('POST', 3)) {
      emulator.setReceiverUrl(tenantId, (await bodyOf<{ url: string }>(request)).url);
      return {};
    }
    if (action === 'branches' && branchId !== undefined && branchAction === 'confirm' && is('POST', 5)) {
      emulator.confirmBranch(tenantId, branchId);
      return { merchant: emulator.merchant(tenantId) };
    }
  }
  if (first === 'ship' && is('POST', 1)) {
    const { eventType } = await bodyOf<{ eventType: ShippableEventType }>(request);
    emulator.shipHandler(eventType);
    return { shipped: deps.shipped() };
  }
  if (first === 'faults' && is('PUT', 1)) {
    const plan = await bodyOf<FaultOptions>(request);
    if (!Array.isArray(plan.kinds))
      return controlError(400, 'INVALID_REQUEST', 'A fault plan needs kinds: a list of fault kinds');
    emulator.injectFaults(plan);
    return { faults: deps.faults() };
  }
  if (first === 'faults' && is('DELETE', 1)) {
    emulator.clearFaults();
    return { faults: null };
  }
  if (first === 'latency' && is('PUT', 1)) {
    emulator.setLatency((await bodyOf<{ ms: number }>(request)).ms);
    return { latencyMs: deps.latencyMs() };
  }
  return controlError(
    404,
    'UNKNOWN_CONTROL_ACTION',
    `No control action ${method} ${CONTROL_BASE_PATH}/${parts.join('/')}: see README "The control interface"`,
  );
}
