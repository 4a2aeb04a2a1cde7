/**
 * What Claude Code's terminal shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data:
 * regular expressions as strings (see src/adapters/screen.ts for how they are read). Lines are
 * matched with a frame's side borders (`│`) taken off. Sources: claude-squad, ccmanager
 * `claude.ts`, agent-deck `detector.go`/`patterns.go`, public pane captures, and the screens of
 * Claude Code 2.1.328 captured by the conformance suite (docs/agents/claude-code.md):
 *
 *    Bash command
 *    Tip: auto mode handles these prompts for you — choose "switch to auto mode" below
 *    make a file
 *   ╌╌╌╌╌╌╌╌
 *    touch made-it.txt
 *   ╌╌╌╌╌╌╌╌
 *    Do you want to proceed?
 *    ❯ 1. Yes
 *      2. Yes, and always allow access to … from this project
 *      3. Yes, and switch to auto mode · …
 *      4. No
 *    Esc to cancel · Tab to amend
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const claudeScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // What is to be approved, when the dialog shows it: the command of a Bash call (2.1.328 puts
    // it between two dashed rules, after a tip and the call's description), the file of an edit.
    String.raw`^\s*Bash command\s*\n(?:[^\n]*\n){0,4}?\s*╌+\s*\n\s*(\S[^\n]*)\n(?:[^\n]*\n){0,8}?\s*(?:Do you want|Would you like)`,
    String.raw`^\s*Bash command\s*\n(?![^\n]*Tip:)\s*(\S[^\n]*)\n(?:[^\n]*\n){0,8}?\s*(?:Do you want|Would you like)`,
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
    // 2.1.328 with a rejected key: `Invalid API key · Fix external API key` (no "API Error").
    String.raw`^(?!\s*[⎿❯>])[^\n]*?(Invalid API key[^\n]*)`,
  ],
  idle: [
    // The prompt box: a lone `>` or `❯` (a non-breaking space may follow), or its suggestion.
    String.raw`^\s*[>❯][\s\u00a0]*$`,
    String.raw`^\s*[>❯][\s\u00a0]+Try "`,
    String.raw`^\s*\? for shortcuts`,
  ],
  processes: ['claude'],
  // `cast approve` / `cast deny` (checked on 2.1.328): a digit picks that choice, Esc denies ("Did not
  // run … What should Claude do instead?") and leaves the prompt for the note. Keys typed in the
  // first second after the dialog opens are swallowed by the CLI's guard against stray typing.
  // `cast choose`: the question dialog's footer says `Enter to select · ↑/↓ to navigate`; the
  // cursor (`❯`) starts on option 1.
  keys: {
    approve: ['1'],
    approveAlways: ['2'],
    deny: ['Escape'],
    denyNoteKeys: ['Escape'],
    questionDown: ['Down'],
    questionSelect: ['Enter'],
    questionUp: ['Up'],
  },
  question: [
    // AskUserQuestion (2.1.328): a header chip (` ☐ Colour`), the question, its numbered choices
    // (`❯ 1. Red`), `Type something.`, `Chat about this`, then
    // `Enter to select · ↑/↓ to navigate · Esc to cancel`. The question is the ask.
    String.raw`^\s*([^\n☐☒✔]*\S[^\n]*\?)\s*\n\s*(?:❯\s*)?1\.\s[^\n]*\n(?:[^\n]*\n){0,24}?[^\n]*Enter to select · ↑/↓ to navigate`,
    String.raw`Enter to select · ↑/↓ to navigate`,
    String.raw`^\s*(?:❯\s*)?\d+\.\s*Type something\.?\s*$`,
  ],
}
