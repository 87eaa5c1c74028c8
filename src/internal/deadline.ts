/**
 * The receiver's two waits on user code, the secrets resolver and the handler, are bounded, so
 * that a call that never settles cannot hold a delivery unanswered (the service would time out
 * and redeliver into a claim that never ends).
 */

/**
 * Whether `value` is a promise or another thenable, which `await` would adopt. The receiver
 * writes `isPromiseLike(x) ? await x : x` at its five steps (secrets, verify, claim, handler,
 * complete), which are synchronous in the common setup (fixed secrets, Node's HMAC, the memory
 * inbox, a synchronous handler): each needless await costs a turn of the event loop, which the
 * receiver's goal beside stripe's constructEvent (bench/README.md) does not leave room for.
 */
export const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null | undefined)?.then === 'function';

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
  if (!isPromiseLike(value)) return value as T;
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
