/**
 * What Claude Code's terminal shows (agent-formats §11.1), for the tmux fallback. Pure data:
 * regular expressions as strings (see src/adapters/screen.ts for how they are read). Lines are
 * matched with a frame's side borders (`│`) taken off. Sources: claude-squad, ccmanager
 * `claude.ts`, agent-deck `detector.go`/`patterns.go`, public pane captures.
 */
import type {ScreenPatterns} from '../screen.js'

export const claudeScreenPatterns: ScreenPatterns = {
  agent: 'claude_code',
  approval: [
    // What is to be approved, when the dialog shows it: the command of a Bash call, the file of an edit.
    String.raw`^\s*Bash command\s*\n\s*(\S[^\n]*)\n(?:[^\n]*\n){0,8}?\s*(?:Do you want|Would you like)`,
    String.raw`(?:Do you want|Would you like) to (?:make this edit to|create|write to|overwrite) ([^\n?]+)\?`,
    // The dialog: its question, then the numbered choices (` ❯ 1. Yes`).
    String.raw`^\s*((?:Do you want|Would you like)[^\n]*\?)\s*\n(?:[^\n]*\n){0,3}?\s*(?:❯\s*)?1\.\s*Yes`,
    String.raw`No, and tell Claude what to do differently`,
    String.raw`/\d+\.\s*deny\s*\(esc\)/i`,
    String.raw`^\s*(?:❯\s*)?(?:\d+\.\s*)?Yes, allow (?:once|always)`,
    String.raw`(Do you trust the files in this folder\?)`,
    String.raw`(Allow this MCP server[^\n]*)`,
    String.raw`(Approve this plan\?|Execute plan\?)`,
  ],
  busy: [
    String.raw`/(?:ctrl\+c|esc) to interrupt/i`,
    // Spinner glyph and an ellipsis: `✢ Hullaballooing… (53s · ↓ 749 tokens)`.
    String.raw`^\s*[✳✽✶✻✢·✱✲]\s*\S[^\n]*…`,
    String.raw`/\([^)\n]*\d[^)\n]*tokens\s*\)/i`,
    String.raw`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s`,
  ],
  error: [
    // The API error banner, not a line of tool output (⎿), the prompt (❯ >) or a quoted one.
    String.raw`^(?!\s*[⎿❯>])[^\n]*?(API Error(?::|\s*\()[^\n]*)`,
    String.raw`^(?!\s*[⎿❯>])[^\n]*?(Please run /login[^\n]*)`,
  ],
  idle: [
    // The prompt box: a lone `>` or `❯` (a non-breaking space may follow), or its suggestion.
    String.raw`^\s*[>❯][\s\u00a0]*$`,
    String.raw`^\s*[>❯][\s\u00a0]+Try "`,
    String.raw`^\s*\? for shortcuts`,
  ],
  processes: ['claude'],
  question: [
    // AskUserQuestion: choices, then `Enter to select · ↑/↓ to navigate · Esc to cancel`.
    String.raw`Enter to select · ↑/↓ to navigate`,
    String.raw`^\s*(?:❯\s*)?\d+\.\s*Type something\.?\s*$`,
  ],
}
