/**
 * Growing the fixed-size columns of the emulator's histories (request log, response cache, ledger,
 * invoices): they double up to their limit, so a short-lived emulator in a test stays small, and
 * once full they are written in place (no object per event for V8 to promote).
 */

/** The next number of slots: double, at least `min`, never past `limit`. */
export const nextSlots = (current: number, min: number, limit: number): number =>
  Math.min(limit, Math.max(min, current * 2));

type NumberColumn = Float64Array | Uint16Array | Uint8Array;

/** A copy of `column` with room for `length` values (the rest zero). */
export function widen<C extends NumberColumn>(column: C, length: number): C {
  const wider = new (column.constructor as new (length: number) => C)(length);
  wider.set(column);
  return wider;
}

/** A copy of `refs`, values as they are, with room for `length` values (the rest `null`). */
export function widenRefs<T>(refs: readonly T[], length: number): (T | null)[] {
  const wider = new Array<T | null>(length).fill(null);
  for (let i = 0; i < refs.length; i++) wider[i] = refs[i] as T;
  return wider;
}
