import { MAX_BATCH_ITEMS } from '../../contract/index.js';
import { type CliIo, createStyle } from '../io.js';

/** Reports how many rows went out, on stderr, while a backfill runs. */
export interface Progress {
  update(sent: number): void;
  /** Ends the display with the final count. */
  done(sent: number): void;
}

/** Defaults of the progress display, declared once. */
export const PROGRESS_DEFAULTS = {
  /** Characters of the terminal bar. */
  width: 30,
  /** Without a terminal, one line per this many rows (a batch). */
  lineEvery: MAX_BATCH_ITEMS,
} as const;

/**
 * A bar redrawn in place on a terminal (only when the percentage changes, so a fast backfill does
 * not flood the terminal), and plain lines otherwise: one per batch of rows, which a CI log or a
 * file keeps readable.
 */
export function createProgress(io: CliIo, total: number): Progress {
  const style = createStyle(io, 'stderr');
  const line = (sent: number) => `backfill: ${sent}/${total} rows sent\n`;
  if (!io.stderr.isTTY) {
    let printed = 0;
    return {
      update(sent) {
        if (
          Math.floor(sent / PROGRESS_DEFAULTS.lineEvery) > Math.floor(printed / PROGRESS_DEFAULTS.lineEvery)
        ) {
          io.stderr.write(line(sent));
          printed = sent;
        }
      },
      done(sent) {
        if (sent !== printed) io.stderr.write(line(sent));
      },
    };
  }
  const [full, empty] = style.enabled ? ['\u2588', '\u2591'] : ['#', '-'];
  let shown = -1;
  const draw = (sent: number) => {
    const ratio = total === 0 ? 1 : Math.min(1, sent / total);
    const percent = Math.floor(ratio * 100);
    if (percent === shown) return;
    shown = percent;
    const filled = Math.round(ratio * PROGRESS_DEFAULTS.width);
    const bar = full.repeat(filled) + empty.repeat(PROGRESS_DEFAULTS.width - filled);
    io.stderr.write(`\r${style.cyan(bar)} ${String(percent).padStart(3)}% ${sent}/${total} rows`);
  };
  return {
    update: draw,
    done(sent) {
      draw(sent);
      io.stderr.write('\n');
    },
  };
}
