/** The edit distance (insertions, deletions, substitutions, adjacent swaps) between two words. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * `; did you mean --payload?` for the valid word closest to what was typed, or nothing when none
 * is a prefix of it or within a third of its length in edits (as git and cargo suggest).
 */
export function didYouMean(typed: string, candidates: readonly string[], prefix = ''): string {
  let best: { word: string; score: number } | undefined;
  for (const word of candidates) {
    const isPrefix = word.startsWith(typed) || typed.startsWith(word);
    const score = isPrefix ? 0.5 : distance(typed, word);
    if (!isPrefix && score > Math.max(1, Math.floor(word.length / 3))) continue;
    if (best === undefined || score < best.score) best = { word, score };
  }
  return best === undefined ? '' : `; did you mean ${prefix}${best.word}?`;
}
