import { createFetchTransport } from '../client/fetch-transport.js';
import type { Transport, TransportSettings } from '../client/transport.js';
import { writeLog } from '../contract/logger.js';
import { createUndiciAgent, createUndiciTransport } from './undici-transport.js';

/**
 * The Node build's default transport: undici with its own keep-alive agent, loaded on the first
 * request rather than with the package, so that a process that never sends (a receiver, most
 * CLI commands) does not pay for loading it.
 *
 * Where undici cannot load, the runtime's own `fetch` sends instead, and the client's logger is
 * told once, with the reason. That is the case in a one-file ESM bundle of the SDK (esbuild
 * `--format=esm` without a `require` banner), where undici's `require('node:assert')` throws:
 * without the fallback every send would fail as a network error, forever.
 */
export function createNodeTransport(settings: TransportSettings): Transport {
  let chosen: Promise<Transport> | undefined;
  const transport = (): Promise<Transport> => {
    chosen ??= createUndiciAgent(settings).then(
      (agent) => createUndiciTransport(agent, settings),
      (err: unknown) => {
        writeLog(
          settings.logger,
          'warn',
          'loyalty.client.transport_fallback',
          "undici could not be loaded: sending with the runtime's fetch instead",
          { reason: err instanceof Error ? err.message : String(err) },
        );
        return createFetchTransport(settings);
      },
    );
    return chosen;
  };
  return {
    // Loading undici (once per client) is not the service's time: each attempt's clock starts after it.
    request: async (request) => (await transport()).request(request),
    async close() {
      if (chosen) await (await chosen).close();
    },
  };
}
