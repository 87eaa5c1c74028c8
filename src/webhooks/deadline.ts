/**
 * The receiver's two waits on user code, the secrets resolver and the handler, are bounded, so
 * that a call that never settles cannot hold a delivery unanswered (the service would time out
 * and redeliver into a claim that never ends).
 */

/** A step did not settle within its time limit. Private: `onError` gets a `WebhookError`. */
export class DeadlinePassed extends Error {
  constructor(readonly ms: number) {
    super(`did not settle within ${ms} ms`);
  }
}

/**
 * `value`, or a promise of what it settles to that rejects with {@link DeadlinePassed} once `ms`
 * have passed. A value that is already there cannot be late (a synchronous call blocks the event
 * loop, and no timer could fire during it), so only a thenable gets a timer. The late outcome of
 * `value` stays handled: it never becomes an unhandled rejection.
 */
export function withDeadline<T>(value: T | PromiseLike<T>, ms: number): T | Promise<T> {
  if (typeof (value as PromiseLike<T> | null | undefined)?.then !== 'function') return value as T;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlinePassed(ms)), ms);
    Promise.resolve(value).then(
      (settled) => {
        clearTimeout(timer);
        resolve(settled);
      },
      (cause: unknown) => {
        clearTimeout(timer);
        reject(cause);
      },
    );
  });
}
