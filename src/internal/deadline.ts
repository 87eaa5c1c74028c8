/** Whether `value` is a thenable `await` would adopt: a synchronous step is not awaited for nothing. */
export const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null | undefined)?.then === 'function';

/** A step did not settle within its time limit. Private: `onError` gets a `WebhookError`. */
export class DeadlinePassed extends Error {
  constructor(readonly ms: number) {
    super(`did not settle within ${ms} ms`);
  }
}

/**
 * `value`, or a promise of what it settles to that rejects with {@link DeadlinePassed} after `ms`, so
 * a call that never settles cannot hold a delivery unanswered. A late outcome stays handled.
 */
export function withDeadline<T>(value: T | PromiseLike<T>, ms: number): T | Promise<T> {
  if (!isPromiseLike(value)) return value as T;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new DeadlinePassed(ms)), ms);
    Promise.resolve(value)
      .then(resolve, reject)
      .finally(() => clearTimeout(timer));
  });
}
