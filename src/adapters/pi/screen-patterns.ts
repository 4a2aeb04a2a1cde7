/**
 * What pi shows (agent-formats §11.7), for the tmux fallback. Pure data: regular expressions as
 * strings (see src/adapters/screen.ts). pi core has no permission prompts. Its working line is
 * `Working... (<interrupt key> to interrupt)` (interactive-mode.ts); agent-deck's markers cover
 * the rest.
 */
import type {ScreenPatterns} from '../screen.js'

export const piScreenPatterns: ScreenPatterns = {
  agent: 'pi',
  approval: [],
  busy: [String.raw`Working\.\.\.`, String.raw`/(?:ctrl\+c|esc) to interrupt/i`, String.raw`^\s*[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]\s`],
  // [guess] pi prints a failed request as `Error: <message>`.
  error: [String.raw`^\s*(Error: [^\n]+)`],
  idle: [String.raw`^\s*pi>\s*`],
  processes: ['pi'],
  question: [],
}
