// "Did you mean": the names closest to one that matched nothing (a Kustomization, a tiers.yaml key or value).

/** Levenshtein distance; names are short, so the quadratic table is fine. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/**
 * The candidates within a typo's distance of `wanted` (2, or a third of its length), or that it begins (3 characters
 * or more), closest first.
 */
export function nearNames(wanted: string, candidates: readonly string[], max = 3): string[] {
  return candidates
    .map((c) => ({ c, d: wanted.length >= 3 && c.startsWith(wanted) ? 1 : editDistance(c, wanted) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(wanted.length / 3)))
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, max)
    .map((x) => x.c);
}
