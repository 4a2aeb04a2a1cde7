/**
 * What an agent's screen patterns are made of (the data each `src/adapters/<agent>/screen-patterns.ts`
 * declares) and what the matcher in ./screen.ts reports. Types and the kinds only: agent modules
 * import this, and ./screen.ts (which reads the registry) imports them.
 */
import type {Agent} from '../core/model/types.js'

export const SCREEN_KINDS = ['approval', 'question', 'busy', 'error', 'idle'] as const
export type ScreenKind = (typeof SCREEN_KINDS)[number]

/**
 * One agent's screen patterns: regular expressions as strings. A plain string is compiled with
 * the `m` flag (`^`/`$` match at line ends); `/source/flags` adds flags (`/esc to interrupt/i`).
 * When a pattern has a capture group, its first group is the text reported; otherwise the line
 * the match starts on.
 */
export interface ScreenPatterns {
  readonly agent: Agent
  /** Process names (comm, or the basename of argv[0] or argv[1]) that run this agent. */
  readonly processes: readonly string[]
  readonly approval: readonly string[]
  readonly question: readonly string[]
  readonly error: readonly string[]
  readonly busy: readonly string[]
  readonly idle: readonly string[]
  /**
   * How to answer this agent's permission dialog in its own UI (`cast approve` / `cast deny`):
   * tmux key names sent in order (`['1']`, `['Escape']`, `['Down', 'Enter']`). `denyNote` types
   * the note (as literal text) after `denyNoteKeys` and ends with Enter. Absent: cast cannot
   * answer that agent's dialog from the terminal and says so (exit 5).
   */
  readonly keys?: DialogKeys
}

export interface DialogKeys {
  readonly approve: readonly string[]
  readonly approveAlways?: readonly string[]
  readonly deny: readonly string[]
  /** Keys that open the agent's "tell it what to do instead" field, before the note is typed. */
  readonly denyNoteKeys?: readonly string[]
  /** A question dialog's menu (`cast choose`): the keys that move the cursor down / up one option, and pick it. */
  readonly questionDown?: readonly string[]
  readonly questionUp?: readonly string[]
  readonly questionSelect?: readonly string[]
}

/** What the screen shows. `text` is the dialog's question, the banner, the busy line. */
export interface ScreenMatch {
  readonly kind: ScreenKind
  readonly text: string
}

export interface CompiledScreenPatterns {
  readonly agent: Agent
  readonly processes: readonly string[]
  readonly kinds: Readonly<Record<ScreenKind, readonly RegExp[]>>
}
