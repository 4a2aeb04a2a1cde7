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

/**
 * How an agent draws an ask of several questions, or a multiple choice (one dialog of tabs), read
 * from a captured screen (`cast choose SESSION A1 A2 …`). Each reader returns null when the screen
 * does not show that part of the dialog.
 */
export interface AskTabsScreen {
  /** The tab bar: each question's chip as drawn (its header) and whether it shows answered. */
  tabs(screen: string): readonly {readonly header: string; readonly answered: boolean}[] | null
  /**
   * The current tab's menu, read below the line that reads `question`: the numbered options (label
   * as drawn; `ticked` for a multiple choice's box, null without one), and where the cursor is (an
   * option's number, or `submit` on a multiple choice's Submit line). Null when that question is
   * not the one shown, or an option number appears twice.
   */
  menu(
    screen: string,
    question: string,
  ): {
    readonly options: ReadonlyMap<number, {readonly label: string; readonly ticked: boolean | null}>
    readonly cursor: number | 'submit' | null
  } | null
  /** The review screen: each question as drawn with its answers as drawn, and whether the cursor is on its submit line. */
  review(
    screen: string,
  ): {readonly answers: readonly {readonly question: string; readonly answer: string}[]; readonly onSubmit: boolean} | null
  /** Whether an answer as the review screen draws it is exactly these labels, in order. */
  sameAnswer(drawn: string, labels: readonly string[]): boolean
}
