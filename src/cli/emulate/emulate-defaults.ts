import { LISTEN_DEFAULTS } from '../../testing/http-server.js';

/** Defaults of `loyalty-partner emulate`, declared once; the control commands aim at the same address. */
export const EMULATE_DEFAULTS = {
  /** A fixed port, so a till's configuration survives a restart; `--port 0` picks a free one. */
  port: 8787,
  host: LISTEN_DEFAULTS.host,
  /** How often new requests and webhook attempts are looked for, in milliseconds. */
  logIntervalMs: 100,
  /**
   * Newest requests, ledger entries, invoices and cached answers kept, fewer than a test's
   * emulator keeps: `emulate` runs for days and logs every request already, so a shorter history
   * keeps the process small (retries and resumed backfills are still replayed).
   */
  historyLimit: 25_000,
} as const;
