import type { CliIo } from './io.js';

/** Resolves with what asked a long-running command to stop; `dispose` stops listening. */
export interface ShutdownWatch {
  readonly requested: Promise<string>;
  dispose(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** `io.shutdown` (tests), else SIGINT or SIGTERM, heard only while the command runs (others die on Ctrl+C). */
export function watchShutdown(io: CliIo): ShutdownWatch {
  const { shutdown } = io;
  let dispose = () => {};
  const requested = new Promise<string>((resolve) => {
    if (shutdown) {
      const onAbort = () => resolve('shutdown requested');
      if (shutdown.aborted) onAbort();
      else shutdown.addEventListener('abort', onAbort, { once: true });
      dispose = () => shutdown.removeEventListener('abort', onAbort);
    } else {
      // A signal listener is called with the signal's name: that is the reason.
      for (const signal of SIGNALS) process.once(signal, resolve);
      dispose = () => {
        for (const signal of SIGNALS) process.removeListener(signal, resolve);
      };
    }
  });
  return { requested, dispose };
}
