import { type CliIo, createStyle } from '../io.js';

/** Reports how many rows went out, on stderr, while a backfill runs. */
export interface Progress {
  /** `sent` rows so far; `read` bytes of the file read so far (for the share done and the ETA). */
  update(sent: number, read: number): void;
  done(sent: number): void;
}

export const PROGRESS_DEFAULTS = {
  /** Characters of the terminal bar. */
  width: 24,
  /** Without a terminal, one line per this many milliseconds: a CI log stays short. */
  lineEveryMs: 5_000,
  /** On a terminal, at most one redraw per this many milliseconds. */
  redrawEveryMs: 200,
} as const;

const duration = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
};

/** Rows sent, rows/s and the time left (of `totalBytes`): a bar on a terminal, else a line now and then. */
export function createProgress(
  io: CliIo,
  totalBytes: number | undefined,
  now: () => number = () => performance.now(),
): Progress {
  const style = createStyle(io, 'stderr');
  const started = now();
  const tty = Boolean(io.stderr.isTTY);
  let last = started;
  let lastSent = 0;
  let lastRead = 0;
  const describe = (sent: number, read: number, at: number) => {
    const seconds = (at - started) / 1000;
    const rate = seconds > 0 ? sent / seconds : 0;
    const share = totalBytes ? Math.min(1, read / totalBytes) : undefined;
    const parts = [
      `${sent.toLocaleString('en-US')} rows sent`,
      `${Math.round(rate).toLocaleString('en-US')} rows/s`,
    ];
    if (share !== undefined && read > 0 && seconds > 0) {
      parts.splice(1, 0, `${Math.floor(share * 100)}%`);
      parts.push(`ETA ${duration(share >= 1 ? 0 : (seconds / share) * (1 - share))}`);
    }
    return { text: parts.join(', '), share };
  };
  const bar = (share: number | undefined) => {
    if (share === undefined) return '';
    const [full, empty] = style.enabled ? ['\u2588', '\u2591'] : ['#', '-'];
    const filled = Math.round(share * PROGRESS_DEFAULTS.width);
    return `${style.cyan(full.repeat(filled) + empty.repeat(PROGRESS_DEFAULTS.width - filled))} `;
  };
  const write = (sent: number, read: number, at: number) => {
    const { text, share } = describe(sent, read, at);
    io.stderr.write(tty ? `\r${bar(share)}${text}\u001b[K` : `backfill: ${text}\n`);
    last = at;
    lastSent = sent;
  };
  return {
    update(sent, read) {
      lastRead = read;
      const at = now();
      if (at - last >= (tty ? PROGRESS_DEFAULTS.redrawEveryMs : PROGRESS_DEFAULTS.lineEveryMs))
        write(sent, read, at);
    },
    done(sent) {
      if (tty || sent !== lastSent) write(sent, totalBytes ?? lastRead, now());
      if (tty) io.stderr.write('\n');
    },
  };
}
