import { expect } from 'vitest';

/** The error `promise` rejects with, asserted to be a `type` (a promise that resolves fails the test). */
export async function rejectionOf<T>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
): Promise<T> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as T;
}
