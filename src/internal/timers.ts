/** The longest delay `setTimeout` honours: above 2^31 - 1 ms it fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `setTimeout` that never keeps a finished program alive on its own (a poll or a retry waiting). */
export function backgroundTimeout(run: () => void, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(run, ms);
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
