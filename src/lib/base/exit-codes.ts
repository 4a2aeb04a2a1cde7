/** Part of the CLI's contract with scripts (docs/contract.md §6): never reuse a number. */
export const EXIT = {
  OK: 0,
  /** Unexpected failure. */
  FAILURE: 1,
  /** Usage: a bad flag or value. */
  USAGE: 2,
  /** Not found: a session, a card, a schedule. */
  NOT_FOUND: 3,
  /** Ambiguous: a prefix matches several. */
  AMBIGUOUS: 4,
  /** Refused: an --if state mismatch, a cap exceeded. */
  REFUSED: 5,
  /** A wait timed out. */
  TIMEOUT: 124,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]
