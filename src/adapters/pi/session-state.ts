/**
 * The pi session parser's state (a handful of scalars: the chain's tail, counters, the newest
 * texts), plain JSON so the engine can persist it between runs, and the small steps the entry
 * handlers (session-lines.ts) take on it.
 */

export const MAX_ASSISTANT_TEXT = 4000
export const MAX_ERROR_TEXT = 500

/** What the chain ending at the current leaf says about the turn. */
export type Tail = 'none' | 'working' | 'settled' | 'error'

export interface PiState {
  readonly v: 1
  nativeId: string
  /** The header line was read. */
  header: boolean
  /** Header `version` (absent in v1 files). */
  version: number | null
  headerId: string | null
  cwd: string | null
  createdAt: number | null
  /** The session this one was forked from (`parentSession`, or v1 `branchedFrom`), as a native id. */
  forkedFrom: string | null
  /** Latest non-empty `session_info.name` (`/name`). */
  name: string | null
  /** First prompt that is more than a lone slash command. */
  firstPrompt: string | null
  /** First prompt of any kind, the title of last resort. */
  firstAny: string | null
  model: string | null
  provider: string | null
  users: number
  assistants: number
  turnIndex: number
  turnStartedAt: number | null
  lastActivityAt: number | null
  lastOutputAt: number | null
  lastAssistantText: string | null
  compactions: number
  /** Id of the entry written just before (null before the first, and in v1 files). */
  prevId: string | null
  tail: Tail
  /** Why the tail is what it is (prompt, tool_use, tool_result, stop, length, aborted, error, navigated, compaction_retry). */
  tailWhy: string | null
  /** The leaf assistant's error, while the tail is 'error'. */
  error: {text: string; at: number | null; offset: number} | null
  /** Failed requests in a row at the end of the chain (pi's retry attempt); absent in older states. */
  failed?: number
  /** Fact name -> byte offset of the line it came from. */
  src: Record<string, number>
}

export function initPi(nativeId: string): PiState {
  return {
    assistants: 0,
    compactions: 0,
    createdAt: null,
    cwd: null,
    error: null,
    failed: 0,
    firstAny: null,
    firstPrompt: null,
    forkedFrom: null,
    header: false,
    headerId: null,
    lastActivityAt: null,
    lastAssistantText: null,
    lastOutputAt: null,
    model: null,
    name: null,
    nativeId,
    prevId: null,
    provider: null,
    src: {},
    tail: 'none',
    tailWhy: null,
    turnIndex: 0,
    turnStartedAt: null,
    users: 0,
    v: 1,
    version: null,
  }
}

export function touch(s: PiState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastActivityAt === null || at >= s.lastActivityAt) {
    s.lastActivityAt = at
    s.src.lastActivityAt = offset
  }
}

export function output(s: PiState, at: number | null, offset: number): void {
  if (at === null) return
  if (s.lastOutputAt === null || at >= s.lastOutputAt) {
    s.lastOutputAt = at
    s.src.lastOutputAt = offset
  }
}

export function setTail(s: PiState, tail: Tail, why: string, offset: number): void {
  s.tail = tail
  s.tailWhy = why
  s.failed = 0
  s.src.settled = offset
  if (tail !== 'error' && s.error !== null) {
    s.error = null
    s.src.error = offset
  }
}
