import { plural } from '../io.js';

/** One line of the doctor's report: what was checked, what was found, and what to change. */
export interface CheckLine {
  readonly check: string;
  readonly status: 'ok' | 'warn' | 'info';
  readonly found: string;
  readonly fix?: string | undefined;
}

export const ok = (check: string, found: string): CheckLine => ({ check, status: 'ok', found });
export const info = (check: string, found: string): CheckLine => ({ check, status: 'info', found });
export function warn(check: string, found: string, fix: string): CheckLine {
  return { check, status: 'warn', found, fix };
}

/** The report as a person reads it: one line per check, the change to make under a warning. */
export function formatReport(target: string, lines: readonly CheckLine[]): string {
  const out = [`loyalty-partner doctor: ${target}`];
  for (const line of lines) {
    out.push(`${line.status.padEnd(5)} ${line.check}: ${line.found}`);
    if (line.fix) out.push(`      fix: ${line.fix}`);
  }
  const warnings = lines.filter((line) => line.status === 'warn').length;
  out.push(warnings === 0 ? 'all well' : plural(warnings, 'warning'));
  return `${out.join('\n')}\n`;
}

/** A clock offset beyond which a warning is given: well inside the contract's 300 s tolerance. */
const CLOCK_WARN_MS = 5_000;

/** `the database's clock is +12 ms from this machine's`, a warning past `CLOCK_WARN_MS`. */
export function clockLine(check: string, whose: string, offset: number, fix: string, note = ''): CheckLine {
  const size = Math.abs(offset);
  const shown = size < 1000 ? `${Math.round(size)} ms` : `${(size / 1000).toFixed(1)} s`;
  const found = `${whose} clock is ${offset >= 0 ? '+' : '-'}${shown} from this machine's`;
  return Math.abs(offset) <= CLOCK_WARN_MS ? ok(check, `${found}${note}`) : warn(check, found, fix);
}
