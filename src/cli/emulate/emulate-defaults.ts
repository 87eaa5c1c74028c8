import { LISTEN_DEFAULTS } from '../../testing/http-server.js';

/** Defaults of `loyalty-partner emulate`, declared once; the control commands aim at the same address. */
export const EMULATE_DEFAULTS = {
  /** A fixed port, so a till's configuration survives a restart; `--port 0` picks a free one. */
  port: 8787,
  host: LISTEN_DEFAULTS.host,
  /** How often new requests and webhook attempts are looked for, in milliseconds. */
  logIntervalMs: 100,
  /** History kept: fewer than in tests, as `emulate` runs for days (retries are still replayed). */
  historyLimit: 25_000,
} as const;
