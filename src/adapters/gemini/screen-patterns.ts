/**
 * What Gemini CLI shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts); lines are matched with the dialog frame's
 * side borders taken off. Checked on the real Gemini CLI 0.61.0 (docs/agents/gemini.md):
 *
 *   permission   `? Shell  echo hi > out` … `Allow execution of [Shell]?` … `● 1. Allow once`,
 *                `2. Allow for this session`, `3. No, suggest changes (esc)`
 *   question     `Answer Questions`, the question, the options, `Enter to select · ↑/↓ to navigate · Esc to cancel`
 *   busy         `⠦ Thinking... (esc to cancel, 2s)` (also while 429/5xx are retried), and after
 *                ~20 s of a silent shell `! Shell awaiting input (Tab to focus)`
 *   error        `✕ [API Error: …]`; the daily-quota dialog `Usage limit reached for all Pro models.`
 *                … `1. Keep trying` `2. Stop`
 *   idle         `>   Type your message or @path/to/file`
 *
 * Older sources: ccmanager `gemini.ts`, a tmux agent manager, gemini-cli `ToolConfirmationMessage.tsx`,
 * `LoadingIndicator.tsx` and `ErrorMessage.tsx`.
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const geminiScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // The tool line above the dialog's question names what is to be approved: `? Shell  echo hi`.
    String.raw`^\s*\?\s+(\S[^\n]*)\n(?:[^\n]*\n){0,40}?[^\n]*(?:Allow execution of|Apply this change|Do you want to proceed)`,
    String.raw`Allow execution of \[([^\]\n]+)\]\?`,
    String.raw`Allow execution of:?\s*'?([^'?\n]+?)'?\?`,
    String.raw`^\s*((?:Apply this change|Allow execution|Do you want to proceed)[^\n]*)`,
    String.raw`Waiting for user confirmation`,
    String.raw`^\s*(?:[●❯]\s*)?(?:\d+\.\s*)?(?:Yes, )?[Aa]llow once`,
  ],
  busy: [String.raw`/\(esc to cancel/i`, String.raw`/Shell awaiting input/i`, String.raw`/esc to cancel/i`],
  error: [String.raw`^\s*(Usage limit reached[^\n]*)`, String.raw`^\s*✕\s+(\S[^\n]*)`],
  idle: [String.raw`Type your message`, String.raw`^\s*gemini>`, String.raw`^\s*>\s*$`],
  // Approve once: `1. Allow once`; always: `2. Allow for this session`; deny: Esc (`3. No, suggest changes (esc)`).
  keys: {approve: ['1'], approveAlways: ['2'], deny: ['Escape']},
  processes: ['gemini'],
  question: [String.raw`Answer Questions\s*\n\s*(\S[^\n]*)`, String.raw`^\s*(\S[^\n]*\?)\s*$(?=[\s\S]*Enter to select)`],
}
