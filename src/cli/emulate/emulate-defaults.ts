import { LISTEN_DEFAULTS } from '../../testing/http-server.js';

/** Defaults of `loyalty-partner emulate`, declared once; the control commands aim at the same address. */
export const EMULATE_DEFAULTS = {
  /** A fixed port, so a till's configuration survives a restart; `--port 0` picks a free one. */
  port: 8787,
  host: LISTEN_DEFAULTS.host,
  /** How often new requests and webhook attempts are looked for, in milliseconds. */
  logIntervalMs: 100,
  /**
   * Newest requests, ledger entries, invoices and cached answers kept in memory, fewer than in a
   * test's emulator (`EMULATOR_DEFAULTS.historyLimit`): `emulate` runs for days under a till or a
   * backfill and already writes every request to its traffic log, and Node lets its heap grow to
   * several times what is kept before it collects. A shorter history keeps the process small;
   * retries and resumed backfills are still replayed.
   */
  historyLimit: 25_000,
} as const;
