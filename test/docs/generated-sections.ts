import { readFileSync, writeFileSync } from 'node:fs';

/**
 * A generated table inside a guide, between its two marker comments. `expected` is the whole text
 * from the start marker to the end marker. With UPDATE_DOCS=1 the guide is rewritten to hold it;
 * either way the guide's text is returned, for the test to compare.
 */
export function guideWithSection(guide: URL, expected: string, start: string, end: string): string {
  let text = readFileSync(guide, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (process.env.UPDATE_DOCS === '1' && from >= 0 && to > from) {
    text = text.slice(0, from) + expected + text.slice(to + end.length);
    writeFileSync(guide, text);
  }
  return text;
}
