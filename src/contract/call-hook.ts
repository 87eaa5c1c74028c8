/**
 * Calls a user's hook (client, outbox, receiver) without letting it change anything: its result
 * is ignored, a throw is swallowed, a rejected promise is caught (it must not crash the process as
 * an unhandled rejection) and is not awaited, so a slow observer never delays the work it watches.
 */
export function callHook<A extends unknown[]>(hook: ((...args: A) => unknown) | undefined, ...args: A): void {
  if (!hook) return;
  try {
    const result: unknown = hook(...args);
    if (typeof (result as PromiseLike<unknown> | null)?.then === 'function') {
      (result as PromiseLike<unknown>).then(undefined, () => undefined);
    }
  } catch {
    // An observer's failure must never fail a send, lose an event or change an answer.
  }
}
