/**
 * Envelopes this process built and validated itself and then froze, so that the client's
 * `sendEnvelope` need not parse them again (the outbox's drain paid for a second zod parse of
 * every event it had validated at `enqueue`). Internal: not exported from the package. An
 * envelope from anywhere else (a user's, or one read back from a store) is not in the set and is
 * parsed as before; so is one whose bundle copy of this module differs (mixed ESM and CommonJS).
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
