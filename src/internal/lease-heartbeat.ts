/**
 * Keeps a claim alive while its handler runs: every third of the lease, `renew` extends it, so
 * a handler slower than the lease is never run a second time by another delivery or process
 * while this one lives. A process that dies stops renewing, and its claim ends with the lease.
 * One heartbeat for both modes: `InboxStore.extend` (immediate) and `extendLease` (deferred).
 *
 * Returns `stop`, to call once the handler settled. A failed renewal is tried again at the next
 * beat (the lease still has two thirds to run).
 */
export function startHeartbeat(leaseMs: number, renew: () => unknown): () => void {
  let renewing = false;
  const beat = () => {
    if (renewing) return;
    renewing = true;
    Promise.resolve()
      .then(renew)
      .catch(() => undefined)
      .finally(() => {
        renewing = false;
      });
  };
  const timer = setInterval(beat, Math.max(1, Math.floor(leaseMs / 3)));
  // A heartbeat never keeps a finished program alive on its own.
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
