/**
 * Envelopes this process built, validated and froze, so that the client's `sendEnvelope` need not
 * parse them again (the outbox's drain paid for a second zod parse of every event it validated at
 * `enqueue`). Any other envelope (a user's, one read back from a store, or one this module's other
 * bundle copy sealed: mixed ESM and CommonJS) is not in the set and is parsed as before.
 */
const validated = new WeakSet<object>();

/**
 * Deep-freezes `envelope`, the output of `createEnvelope`, and remembers it as valid: frozen, it
 * cannot change between this check and the bytes that are sent.
 */
export function sealValidated<T extends object>(envelope: T): T {
  deepFreeze(envelope);
  validated.add(envelope);
  return envelope;
}

/** Was `envelope` sealed by `sealValidated` in this process (and so is unchanged since)? */
export function isSealedValid(envelope: unknown): boolean {
  return typeof envelope === 'object' && envelope !== null && validated.has(envelope);
}

function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child);
  }
}
