// The package's first import paths, one list for the scripts that count the public surface
// (scripts/list-exports.mjs) and the benchmark that times importing it (bench/import-time.mjs).

/** The entries of the first wave, the root first, whose run-time exports share one budget. */
export const FIRST_WAVE = [
  'loyalty-partner-sdk',
  'loyalty-partner-sdk/signature',
  'loyalty-partner-sdk/webhooks',
  'loyalty-partner-sdk/node',
  'loyalty-partner-sdk/express',
  'loyalty-partner-sdk/next',
  'loyalty-partner-sdk/fetch',
];
