/**
 * What Gemini CLI shows (agent-formats §11.3), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts); lines are matched with the dialog frame's
 * side borders taken off. Sources: ccmanager `gemini.ts`, claude-squad, gemini-cli
 * `ToolConfirmationMessage.tsx`, `LoadingIndicator.tsx` and `ErrorMessage.tsx` (`✕ <text>`).
 */
import type {ScreenPatterns} from '../screen.js'

export const geminiScreenPatterns: ScreenPatterns = {
  agent: 'gemini',
  approval: [
    String.raw`Allow execution of:?\s*'?([^'?\n]+?)'?\?`,
    String.raw`^\s*((?:Apply this change|Allow execution|Do you want to proceed)[^\n]*)`,
    String.raw`Waiting for user confirmation`,
    String.raw`^\s*(?:[●❯]\s*)?(?:\d+\.\s*)?(?:Yes, )?[Aa]llow once`,
  ],
  busy: [String.raw`/\(esc to cancel/i`, String.raw`/esc to cancel/i`],
  error: [String.raw`^\s*✕\s+(\S[^\n]*)`],
  idle: [String.raw`Type your message`, String.raw`^\s*gemini>`, String.raw`^\s*>\s*$`],
  processes: ['gemini'],
  question: [],
}
