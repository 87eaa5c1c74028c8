import type { CliIo } from './io.js';

/** Resolves with what asked a long-running command to stop; `dispose` stops listening. */
export interface ShutdownWatch {
  readonly requested: Promise<string>;
  dispose(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Waits for `io.shutdown` when the caller gave one (tests, an embedding program), else for SIGINT
 * or SIGTERM. The handlers live only while the command runs, so every other command keeps Node's
 * default of dying on Ctrl+C.
 */
export function watchShutdown(io: CliIo): ShutdownWatch {
  const { shutdown } = io;
  if (shutdown) {
    let onAbort = () => {};
    const requested = new Promise<string>((resolve) => {
      onAbort = () => resolve('shutdown requested');
      if (shutdown.aborted) onAbort();
      else shutdown.addEventListener('abort', onAbort, { once: true });
    });
    return { requested, dispose: () => shutdown.removeEventListener('abort', onAbort) };
  }
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const requested = new Promise<string>((resolve) => {
    onSignal = (signal) => resolve(signal);
    for (const signal of SIGNALS) process.once(signal, onSignal);
  });
  return {
    requested,
    dispose: () => {
      for (const signal of SIGNALS) process.removeListener(signal, onSignal);
    },
  };
}
