/**
 * Abort plumbing of calls, backoff waits and the fetch transport's attempts. Written out instead of
 * `AbortSignal.any`/`AbortSignal.timeout` so that listeners are removed as soon as an attempt
 * ends (thousands of attempts on one long-lived caller signal must not pile up listeners) and
 * so that a timeout can be told apart from a caller's abort.
 */

/** Rejects with the signal's own reason: what the caller passed to `abort(reason)`, else an `AbortError`. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** Waits `ms`, or rejects with `signal.reason` as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The signal of one attempt: aborted by the call's signal or when `timeoutMs` runs out. */
export interface AttemptSignal {
  signal: AbortSignal;
  /** `true` once the timeout, not the caller, aborted the attempt. */
  readonly timedOut: boolean;
  dispose(): void;
}

/** Links a fresh signal to `parent` and arms the attempt's timeout. Call `dispose()` when done. */
export function attemptSignal(parent: AbortSignal, timeoutMs: number): AttemptSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`attempt timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** One signal for a whole call: the caller's (if any) and the client's own, which `close()` aborts. */
export function callSignal(
  caller: AbortSignal | undefined,
  client: AbortSignal,
): { signal: AbortSignal; dispose(): void } {
  if (!caller) return { signal: client, dispose() {} };
  const controller = new AbortController();
  const fromCaller = () => controller.abort(caller.reason);
  const fromClient = () => controller.abort(client.reason);
  if (caller.aborted) fromCaller();
  else if (client.aborted) fromClient();
  else {
    caller.addEventListener('abort', fromCaller, { once: true });
    client.addEventListener('abort', fromClient, { once: true });
  }
  return {
    signal: controller.signal,
    dispose() {
      caller.removeEventListener('abort', fromCaller);
      client.removeEventListener('abort', fromClient);
    },
  };
}

/**
 * `promise`, or a rejection with `signal.reason` as soon as the signal aborts, whichever comes
 * first. undici notices an aborted signal only once a queued request reaches a socket; a caller
 * who gave up must not wait for that.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
