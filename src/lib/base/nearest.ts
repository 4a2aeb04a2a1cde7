/** The nearest names to a typo (edit distance): commands for the not-found hook, flags for the parser's errors. */
export function distance(a: string, b: string): number {
  const prev = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }

  return prev[b.length]!
}

/** The nearest ids to what was typed (at most 3, within a distance that still looks like a typo). */
export function nearest(typed: string, ids: readonly string[]): string[] {
  const scored = ids
    .map((id) => ({d: Math.min(distance(typed, id), id.startsWith(typed) && typed.length >= 2 ? 1 : 99), id}))
    .filter((s) => s.d <= Math.max(2, Math.floor(typed.length / 3)))
    .sort((x, y) => x.d - y.d || x.id.localeCompare(y.id))
  return scored.slice(0, 3).map((s) => s.id)
}
