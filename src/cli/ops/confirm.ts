import type { CliIo } from '../io.js';

/**
 * Asks `question` on stderr and reads one answer line from standard input: true for `y` or `yes`.
 * Nothing to read (a script's closed stdin) is a no: scripts pass `--yes`.
 */
export async function confirm(io: CliIo, question: string): Promise<boolean> {
  io.stderr.write(`${question} [y/N] `);
  let answer = '';
  for await (const chunk of io.stdin) {
    answer += typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
    if (answer.includes('\n')) break;
  }
  const word = answer.split('\n')[0]?.trim().toLowerCase();
  io.stderr.write('\n');
  return word === 'y' || word === 'yes';
}
