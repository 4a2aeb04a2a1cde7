/**
 * Typed per-source facts: what a pi session file carries beside its
 * SessionFacts (session.ts writes it). pi has one source and the default compose, so nothing in
 * cast reads it back yet; it is typed so what the parser writes is checked, as every adapter's is.
 */

/** A session file's state beyond the facts. */
export type SessionFileFacts = {
  readonly pi: 'session'
  readonly compactions: number
  /** The session this one was forked from (`parentSession`, or v1 `branchedFrom`), as a native id. */
  readonly forkedFrom: string | null
  readonly headerId: string | null
  readonly provider: string | null
  /** Why the tail is what it is (prompt, tool_use, tool_result, stop, length, aborted, error, navigated, compaction_retry). */
  readonly tail: string | null
  /** Header `version` (1 when a header has none, null with no header). */
  readonly version: number | null
}
