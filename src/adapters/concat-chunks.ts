// Moved to internal/; kept for testing/receiver-exchange.ts, which imports it from here.
export { concatChunks } from '../internal/concat-chunks.js';
