/**
 * What OpenCode's TUI shows (agent-formats §11.4), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts). OpenCode keeps permission requests in its
 * server's memory, so without its server the screen is where a pending permission shows.
 * Sources: ccmanager `opencode.ts`, agent-deck.
 */
import type {ScreenPatterns} from '../screen.js'

export const opencodeScreenPatterns: ScreenPatterns = {
  agent: 'opencode',
  approval: [
    // The request under the banner (`→ Bash: rm -rf dist`).
    String.raw`Permission required[^\n]*\n\s*(?:→\s*)?(\S[^\n]*)`,
    String.raw`(△\s*Permission required[^\n]*)`, String.raw`^\s*(Permission required[^\n]*)`],
  busy: [
    String.raw`/esc\s+(?:to\s+)?interrupt/i`,
    String.raw`^\s*(?:Thinking|Generating|Building tool call|Waiting for tool response)\.\.\.`,
  ],
  error: [],
  idle: [String.raw`Ask anything`, String.raw`/press enter to send/i`],
  processes: ['opencode'],
  question: [String.raw`/esc dismiss/i`],
}
