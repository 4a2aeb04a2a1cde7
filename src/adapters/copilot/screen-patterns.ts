/**
 * What Copilot CLI shows (agent-formats §11.6), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts). Sources: ccmanager `github-copilot.ts`
 * (`/confirm with .+ enter/i`, `│ do you want`), agent-deck.
 */
import type {ScreenPatterns} from '../screen.js'

export const copilotScreenPatterns: ScreenPatterns = {
  agent: 'copilot',
  approval: [
    // The question, then its numbered choices.
    String.raw`/^\s*(do you want[^\n]*\?)\s*\n(?:[^\n]*\n){0,3}?\s*(?:❯\s*)?1\.\s*Yes/i`,
    String.raw`/confirm with .+ enter/i`,
    // [guess] the choice that declines, as in the other CLIs' dialogs.
    String.raw`No, and tell Copilot what to do differently`,
  ],
  busy: [
    String.raw`/esc to cancel/i`,
    String.raw`/(?:ctrl\+c|esc) to interrupt/i`,
    String.raw`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s*(?:Thinking|Generating|Reading|Searching|Running)`,
  ],
  error: [],
  idle: [String.raw`How can I help`, String.raw`^\s*copilot>`, String.raw`^\s*[>›]\s*$`],
  processes: ['copilot'],
  question: [],
}
