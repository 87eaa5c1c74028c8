/**
 * Rows as an aligned text table, cells cut at `maxWidth` and stripped of control characters: an
 * error message cannot break the layout or send escape sequences to the terminal.
 */
export function formatTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidth = 60,
): string {
  const clean = (cell: string) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
    const flat = cell.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
    return flat.length > maxWidth ? `${flat.slice(0, maxWidth - 1)}…` : flat;
  };
  const cells = rows.map((row) => row.map(clean));
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

/** How long ago `at` (Unix ms) was, as a person reads it: `42s`, `7m`, `3h`, `2d`. */
export function ageOf(at: number | null | undefined, now = Date.now()): string {
  if (at === null || at === undefined) return '';
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}
