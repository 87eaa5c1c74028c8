/**
 * The one options normalizer of the package: an option given as `undefined` is an option not
 * given, at every depth. A plain spread would let `{ retry: { maxAttempts: undefined } }` erase a
 * default, which is how a client once made 101 attempts.
 */
export function withoutUndefined<T>(value: T): T {
  if (!isPlainObject(value)) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    if (field !== undefined) kept[name] = withoutUndefined(field);
  }
  return kept as T;
}

/**
 * The options over their defaults, after {@link withoutUndefined}: one level deep, so a group such
 * as `retry` given in part keeps the defaults of its other fields when `defaults` holds the group.
 */
export function mergeDefaults<T extends object>(defaults: Required<T>, options: T | undefined): Required<T> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(withoutUndefined(options ?? {}))) {
    const fallback = merged[name];
    merged[name] = isPlainObject(fallback) && isPlainObject(value) ? { ...fallback, ...value } : value;
  }
  return merged as Required<T>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
