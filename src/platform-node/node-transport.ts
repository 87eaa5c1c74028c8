import { createFetchTransport } from '../client/fetch-transport.js';
import type { Transport, TransportSettings } from '../client/transport.js';
import { writeLog } from '../contract/logger.js';
import { createUndiciAgent, createUndiciTransport } from './undici-transport.js';

/**
 * The Node build's default transport: undici with its own keep-alive agent, loaded on the first
 * request so a process that never sends does not load it. Where undici cannot load (a one-file
 * ESM bundle, where its `require('node:assert')` throws), the runtime's `fetch` sends instead,
 * with one log line saying why: otherwise every send would fail as a network error.
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
