/**
 * What Copilot CLI shows, for the tmux fallback. Pure data: regular expressions as strings (see
 * src/adapters/screen.ts). Every pattern below was captured from Copilot CLI 1.0.102 in tmux
 * (docs/agents/copilot.md has the screens).
 *
 * - Permission dialog, inside a box: `│ Do you want to run this command?` then `│ ❯ 1. Yes`,
 *   sometimes `2. Yes, and don't ask again for `touch` in this directory (…)`, and last
 *   `No, and tell Copilot what to do differently (Esc to stop)`.
 * - Question (ask_user): `Copilot needs information.` then the question on the next line, the
 *   choices, `↑/↓ select · enter accept · ctrl+d decline · esc cancel`.
 * - Busy, in place of the footer: `◎ Working esc esc edit prompt`, `○ Working · 71 B esc esc
 *   interrupt` (also while it retries). `● Waiting for background shells · … esc esc interrupt`
 *   is the turn over with a shell running: not busy.
 * - Error: `✗ Failed to get response from the AI model; retried 5 times … Last error: 500 …`.
 * - Idle footer: `← open sidebar · Interactive · Manual Approval · / commands · ? help`.
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const copilotScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // The question (inside the dialog's box), then its numbered choices.
    String.raw`/^[\s│]*(do you want[^\n│]*\?)[\s│]*\n(?:[^\n]*\n){0,3}?[\s│]*(?:❯\s*)?1\.\s*Yes/i`,
    String.raw`/confirm with .+ enter/i`,
  ],
  busy: [String.raw`^\s*[○◎◉●◐◑◒◓◔◕⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s+Working\b[^\n]*\besc\b`, String.raw`/(?:ctrl\+c|esc) to interrupt/i`],
  error: [
    String.raw`^\s*✗\s+(Failed to get response from the AI model[^\n]*)`,
    String.raw`^\s*✗\s+((?:Authentication|Unauthorized|Rate limit|Request failed)[^\n]*)`,
  ],
  idle: [String.raw`← open sidebar · `, String.raw`/ commands · \? help`],
  // cast approve: `1` then Enter picks "Yes". cast deny: Esc ("No (Esc to stop)") declines and
  // ends the turn. A note: the last choice ("No, and tell Copilot what to do differently") is
  // reached with Down presses (the list does not wrap; two or three choices), then the note is
  // typed and Enter sends it. "Yes, and don't ask again" is offered only for some commands
  // (not at a fixed place), so there are no keys for --always.
  keys: {approve: ['1', 'Enter'], deny: ['Escape'], denyNoteKeys: ['Down', 'Down', 'Down', 'Down']},
  processes: ['copilot'],
  question: [String.raw`Copilot needs information\.\s*\n\s*([^\n]+)`],
}
