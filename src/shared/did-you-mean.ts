/**
 * The closest known name to something a user typed (a query parameter, a stored query, an
 * environment variable), for "did you mean …?" messages. Optimal string alignment distance
 * (Levenshtein with adjacent transpositions), so `DATABSE_URL` is one edit from `DATABASE_URL`.
 */

/** Edits (insert, delete, substitute, swap two adjacent characters) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name nearest to `typed`, if it is within `maxEdits` (default: 2, or 1 for names of
 * four characters or fewer, where two edits turn HOME into HOST); ties go to the first listed.
 */
export function closest(typed: string, known: Iterable<string>, maxEdits?: number): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const limit = maxEdits ?? (name.length <= 4 ? 1 : 2);
    const d = editDistance(typed, name);
    if (d <= limit && d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}
