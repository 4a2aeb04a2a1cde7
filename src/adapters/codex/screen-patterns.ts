/**
 * What the Codex TUI shows (agent-formats §11.2), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts). Codex writes no approval to its rollout
 * files, so the screen is the one place a pending approval shows without hooks. Sources: public
 * pane captures, ccmanager `codex.ts`, agent-deck, codex-rs `history_cell.rs` (`■ <message>`).
 */
import type {ScreenPatterns} from '../screen.js'

export const codexScreenPatterns: ScreenPatterns = {
  agent: 'codex',
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
  busy: [String.raw`/esc to interrupt/i`, String.raw`/ctrl\+c to interrupt/i`, String.raw`^\s*•\s*Working\b`],
  error: [
    // An error cell: `■ stream disconnected before completion: …`.
    String.raw`^\s*■\s+(\S[^\n]*)`,
  ],
  idle: [String.raw`^›\s`, String.raw`How can I help`, String.raw`^\s*codex>`],
  processes: ['codex'],
  question: [String.raw`/enter to submit answer/i`],
}
