/**
 * Keeps a claim alive while it runs: `renew` every third of the lease (a failed renewal is tried
 * at the next beat), so a slow run is never taken over while its process lives. Returns `stop`.
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
