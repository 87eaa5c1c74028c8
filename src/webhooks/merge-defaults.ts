/**
 * The options over their defaults, where an option given as `undefined` keeps its default (a
 * plain spread would let `{ ttlMs: undefined }` erase it).
 */
export function mergeDefaults<T extends object>(defaults: Required<T>, options: T | undefined): Required<T> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [name, value] of Object.entries(options ?? {})) if (value !== undefined) merged[name] = value;
  return merged as Required<T>;
}
