import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgress } from '../../../src/cli/backfill/progress.js';

function stderr(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
  });
  const io = { stdout: new PassThrough(), stderr: stream, stdin: new PassThrough(), env: { NO_COLOR: '1' } };
  return { io, text: () => text };
}

describe('backfill progress', () => {
  it('writes a line every five seconds off a terminal, with rows/s and the time left: 10 lines for 100,000 rows at 2,000/s', () => {
    const { io, text } = stderr(false);
    let now = 0;
    const totalBytes = 5_000_000;
    const progress = createProgress(io, totalBytes, () => now);
    // 100,000 rows at 2,000 rows/s: one update per row, 0.5 ms apart; 50 bytes a row.
    for (let sent = 1; sent <= 100_000; sent++) {
      now = sent / 2;
      progress.update(sent, sent * 50);
    }
    progress.done(100_000);
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('backfill: 10,000 rows sent, 10%, 2,000 rows/s, ETA 0:45');
    expect(lines[4]).toBe('backfill: 50,000 rows sent, 50%, 2,000 rows/s, ETA 0:25');
    expect(lines.at(-1)).toBe('backfill: 100,000 rows sent, 100%, 2,000 rows/s, ETA 0:00');
  });

  it('redraws a bar in place on a terminal, and shows no share or ETA when the size is unknown (stdin)', () => {
    const tty = stderr(true);
    let now = 0;
    const bar = createProgress(tty.io, 1_000, () => now);
    now = 1_000;
    bar.update(250, 250);
    expect(tty.text()).toBe('\r######------------------ 250 rows sent, 25%, 250 rows/s, ETA 0:03\u001b[K');
    const piped = stderr(false);
    const unknown = createProgress(piped.io, undefined, () => now);
    now = 7_000;
    unknown.update(1_200, 60_000);
    expect(piped.text()).toBe('backfill: 1,200 rows sent, 200 rows/s\n');
  });
});
