/**
 * What the Codex TUI shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts). Codex writes no approval to its rollout
 * files, so the screen is the one place a pending approval shows without hooks. Sources: public
 * pane captures, ccmanager `codex.ts`, agent-deck, codex-rs `history_cell.rs` (`■ <message>`).
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const codexScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // The command, shown under the question (`$ pnpm test`), after an optional `Reason:` line.
    String.raw`Would you like to run the following command\?\s*\n(?:[^\n]*\n){0,3}?\s*\$ ([^\n]+)`,
    String.raw`((?:Would you like to (?:run the following command|make the following edits|grant these permissions)|Allow command)[^\n]*\?)`,
    String.raw`Yes, proceed \(y\)`,
    String.raw`No, and tell Codex what to do differently`,
    String.raw`/press enter to confirm or esc to cancel/i`,
    String.raw`/confirm with .+ enter/i`,
    String.raw`(Do you trust the contents of this directory[^\n]*)`,
  ],
  busy: [
    String.raw`/esc to interrupt/i`,
    String.raw`/ctrl\+c to interrupt/i`,
    String.raw`^\s*•\s*Working\b`,
    // 0.169 retrying: `• Server is busy, reconnecting 1/5`, `• Reconnecting to server… (5s)`.
    String.raw`^\s*•\s*(?:Server is busy, reconnecting|Reconnecting)\b`,
  ],
  error: [
    // An error cell: `■ exceeded retry limit, last status: 429 Too Many Requests`. An Esc
    // leaves `■ Conversation interrupted - use /feedback…`: the user's own stop, not an error.
    String.raw`^\s*■\s+((?!Conversation interrupted)\S[^\n]*)`,
  ],
  // 0.169 shows the composer (`› Ask Codex to do anything`) ALWAYS, busy or not, and a streaming
  // reply has no `Working (` line: a turn is over only when `Worked for …` is the last thing above
  // the composer (then blank lines, the composer, the footer).
  idle: [String.raw`/Worked for [^\n]*\n(?:[ \t]*\n)*›[^\n]*\n(?:[ \t]*\n)*(?:  [^\n]*\n?){0,3}\s*$/`, String.raw`^\s*codex>`],
  // 0.169's exec dialog: `› 1. Yes, proceed (y)`, `2. Yes, and don't ask again for commands that
  // start with `…` (p)`, `3. No, and tell Codex what to do differently (esc)`. Esc denies and
  // leaves the composer open, so a note is typed there and sent with Enter.
  keys: {approve: ['y'], approveAlways: ['p'], deny: ['Escape'], denyNoteKeys: ['Escape']},
  processes: ['codex'],
  question: [String.raw`/enter to submit answer/i`],
}
