/**
 * Abort plumbing of calls, backoff waits and the fetch transport's attempts, written out instead
 * of `AbortSignal.any`/`timeout` so listeners go as soon as an attempt ends (a long-lived caller
 * signal must not pile them up) and a timeout can be told apart from a caller's abort.
 */

/** Rejects with the signal's own reason: what the caller passed to `abort(reason)`, else an `AbortError`. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/**
 * Waits `ms`, or rejects with the reason of `signal` or `closed` (the client's own) as soon as
 * either aborts. Only retries wait, so listening to both here costs nothing on a first attempt.
 */
export function sleep(ms: number, signal: AbortSignal, closed: AbortSignal = signal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    if (closed.aborted) return reject(closed.reason);
    const stop = () => {
      signal.removeEventListener('abort', onAbort);
      if (closed !== signal) closed.removeEventListener('abort', onClose);
    };
    const rejectWith = (source: AbortSignal) => () => {
      clearTimeout(timer);
      stop();
      reject(source.reason);
    };
    const onAbort = rejectWith(signal);
    const onClose = rejectWith(closed);
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    if (closed !== signal) closed.addEventListener('abort', onClose, { once: true });
  });
}

/** The signal of one attempt: aborted by the call's signal, the client's, or when `timeoutMs` runs out. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** `true` once the timeout, not the caller, aborted the attempt. */
  readonly timedOut: boolean;
  /**
   * `promise`, or a rejection with the attempt signal's reason as soon as it aborts, whichever
   * comes first. undici notices an aborted signal only once a queued request reaches a socket; a
   * caller who gave up must not wait for that.
   */
  race<T>(promise: Promise<T>): Promise<T>;
  dispose(): void;
}

/**
 * One signal per attempt, linked straight to the call's signal and to the client's own (which
 * `close()` aborts), with the attempt's timeout armed: the only signal a call creates. The call's
 * signal is the caller's, or the client's own when the caller gave none. Call `dispose()` when done.
 */
export function attemptSignal(call: AbortSignal, closed: AbortSignal, timeoutMs: number): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  let rejectRace: ((reason: unknown) => void) | undefined;
  const abort = (reason: unknown) => {
    controller.abort(reason);
    rejectRace?.(reason);
  };
  const onCall = () => abort(call.reason);
  const onClose = () => abort(closed.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    abort(new Error(`attempt timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  if (call.aborted) onCall();
  else if (closed.aborted) onClose();
  else {
    call.addEventListener('abort', onCall, { once: true });
    if (closed !== call) closed.addEventListener('abort', onClose, { once: true });
  }
  const { signal } = controller;
  return {
    signal,
    get timedOut() {
      return timedOut;
    },
    race<T>(promise: Promise<T>): Promise<T> {
      if (signal.aborted) {
        promise.catch(() => {});
        return Promise.reject(signal.reason);
      }
      return new Promise<T>((resolve, reject) => {
        rejectRace = reject;
        promise.then(resolve, reject);
      });
    },
    dispose() {
      clearTimeout(timer);
      call.removeEventListener('abort', onCall);
      if (closed !== call) closed.removeEventListener('abort', onClose);
    },
  };
}
