// "Did you mean …?" for a mistyped name (a field, a query parameter, a flag, a command): the nearest known name by
// edit distance, or the known name that contains it (`timeout` → `timeoutSeconds`), or nothing when none is close.

/** Levenshtein distance (insert, delete, substitute; a swap of two neighbours counts 1), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (s === t) return 0;
  const rows: number[][] = [];
  for (let i = 0; i <= s.length; i++) rows.push([i]);
  for (let j = 1; j <= t.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[s.length]![t.length]!;
}

/** The known name nearest to `given`, or undefined when none is near enough to be a likely typo. */
export function nearest(given: string, known: Iterable<string>): string | undefined {
  const bare = (s: string) => s.replace(/^-+/, '').toLowerCase();
  const g = bare(given);
  if (g === '') return undefined;
  let best: { name: string; score: number } | undefined;
  for (const name of known) {
    const k = bare(name);
    if (k === g) continue;
    const d = editDistance(g, k);
    // A typo: at most a third of the name wrong (at least 1, at most 3 edits) …
    const typo = d <= Math.min(3, Math.max(1, Math.floor(k.length / 3)));
    // … or the known name is the given one with a part added or left off (timeout → timeoutSeconds).
    const part = g.length >= 3 && k.length >= 3 && (k.startsWith(g) || g.startsWith(k));
    if (!typo && !part) continue;
    const score = typo ? d : 10 + Math.abs(k.length - g.length);
    if (!best || score < best.score) best = { name, score };
  }
  return best?.name;
}

/** " (did you mean X?)" or "" — to append to a message about an unknown name. */
export function didYouMean(given: string, known: Iterable<string>): string {
  const n = nearest(given, known);
  return n === undefined ? '' : ` (did you mean ${n}?)`;
}
