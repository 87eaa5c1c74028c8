import { CONTROL_BASE_PATH } from '../../testing/control/control-api.js';
import { CLIENT_ENV } from '../client-env.js';
import type { CliIo } from '../io.js';

/**
 * Whether an `--event-id` send was answered from the cache: the answer does not say (a replay is
 * the first answer, byte for byte), an emulator's request log does; else `null`, unknown.
 */
export async function replayOf(io: CliIo, eventId: string): Promise<boolean | null> {
  const base = io.env[CLIENT_ENV.baseUrl]?.replace(/\/+$/, '');
  if (!base) return null;
  try {
    const url = `${base}${CONTROL_BASE_PATH}/requests?eventId=${encodeURIComponent(eventId)}`;
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    if (!response.ok) return null;
    const { requests } = (await response.json()) as { requests?: { outcome?: string }[] };
    const last = requests?.findLast((r) => r.outcome === 'processed' || r.outcome === 'replayed');
    return last === undefined ? null : last.outcome === 'replayed';
  } catch {
    return null;
  }
}

/** The line after the answer: what `--event-id` means for this one. */
export function replayNote(replay: boolean | null): string {
  if (replay === true)
    return 'This eventId was processed before: the service replayed its first answer (cached for 24 h) and processed nothing again.';
  if (replay === false) return 'This eventId was new: the service processed it.';
  return (
    'With --event-id, an eventId the service saw in the last 24 h gets its first answer replayed and is ' +
    'processed once only; this answer does not say which it was.'
  );
}
