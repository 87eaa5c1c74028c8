import type { Emulator } from '../emulator-api.js';
import type { FaultOptions } from '../faults.js';
import type { MerchantStore } from '../merchant-store.js';
import type { RequestLog } from '../request-log.js';
import type { Delivery } from '../webhook-dispatcher.js';

/** What the control interface reaches: the emulator's public API, plus what only a dashboard reads. */
export interface ControlDeps {
  emulator: Emulator;
  store: MerchantStore;
  recentDeliveries: (count: number) => Delivery[];
  log: RequestLog;
  cacheSize: () => number;
  shipped: () => string[];
  faults: () => FaultOptions | null;
  latencyMs: () => number;
  /** Host names the control interface answers besides localhost and IP addresses. */
  allowedHosts: () => readonly string[];
}
