/**
 * How many of the newest items each of the emulator's records keeps by default: the request log,
 * the deliveries that reached an end state, and each merchant's ledger, invoices and cached
 * answers (which are also forgotten after 24 h). Balances stay exact whatever is forgotten: they
 * are running sums, not a scan of the ledger.
 * Public as `EMULATOR_DEFAULTS.historyLimit`.
 */
export const HISTORY_LIMIT_DEFAULT = 50_000;
