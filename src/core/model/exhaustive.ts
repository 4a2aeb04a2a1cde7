/**
 * The default branch of a `switch` that handles every member of a union: `exhaustive(x)` compiles
 * only when `x` is `never` there, so a member added to the union (a reason, a state, a bucket, a
 * notification kind) fails tsc at every switch that does not handle it yet. At run time it does
 * nothing: a value outside the union (a store written by a newer cast) takes the caller's fallback.
 * The sites are listed in docs/architecture.md ("Extension points tsc checks").
 */
export function exhaustive(value: never): void {
  void value
}
