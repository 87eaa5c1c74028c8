/**
 * The receiver's steps return a plain value when everything they called was synchronous (the
 * default memory inbox, static secrets, Node's HMAC, most handlers) and a promise otherwise.
 * Awaiting a plain value still costs a promise and a microtask: each awaited step adds about
 * 0.2 µs to a delivery of 9 µs (npm run bench, receiver), and the receiver had eight of them.
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Whether `value` is a promise or any other thenable, which `await` would adopt. Reading `then`
 * may run a getter that throws: call it where a throw counts as the step's own failure.
 */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as PromiseLike<unknown> | null | undefined)?.then === 'function';

/**
 * `next(value)`, at once when `value` is not a thenable, else once it settles; a rejection goes
 * to `failed` when given, as a `catch` around an `await` would.
 */
export function andThen<T, R>(
  value: T | PromiseLike<T>,
  next: (value: T) => MaybePromise<R>,
  failed?: (cause: unknown) => MaybePromise<R>,
): MaybePromise<R> {
  return isThenable(value) ? Promise.resolve(value).then(next, failed) : next(value as T);
}
