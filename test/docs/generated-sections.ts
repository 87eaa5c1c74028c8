import { readFileSync, writeFileSync } from 'node:fs';

/**
 * A generated table inside a guide, between its two marker comments. `expected` is the whole text
 * from the start marker to the end marker. With `<update>=1` in the environment (UPDATE_DOCS unless
 * told) the guide is rewritten to hold it; either way the guide's text is returned, for the test
 * to compare.
 */
export function guideWithSection(
  guide: URL | string,
  expected: string,
  start: string,
  end: string,
  update = 'UPDATE_DOCS',
): string {
  let text = readFileSync(guide, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (process.env[update] === '1' && from >= 0 && to > from) {
    text = text.slice(0, from) + expected + text.slice(to + end.length);
    writeFileSync(guide, text);
  }
  return text;
}
