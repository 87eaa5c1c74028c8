/**
 * A Node warning (a log line wherever the process logs its stderr); nothing where the runtime has
 * no `process.emitWarning`. With `once`, at most one per code per process.
 */
export function warn(message: string, code: string, once = false): void {
  if (once && warned.has(code)) return;
  warned.add(code);
  (
    globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }
  ).process?.emitWarning?.(message, { code });
}
const warned = new Set<string>();
