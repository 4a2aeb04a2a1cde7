/**
 * What OpenCode's TUI shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data: regular
 * expressions as strings (see src/adapters/screen.ts). OpenCode keeps permission requests in its
 * server's memory, so without its server the screen is where a pending permission shows.
 * Sources: ccmanager `opencode.ts`, agent-deck.
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const opencodeScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // The request under the banner (`→ Bash: rm -rf dist`).
    // 1.18.33: `┃  △ Permission required` then `┃    ← Access external directory /etc` (the
    // dialog sits in the prompt box, every line behind its `┃` rail; a sidebar may follow after a gap).
    String.raw`Permission required[^\n]*\n[\s┃]*(?:[→←]\s*)?(\S(?:[^\n]*?\S)?)(?: {3,}|[ \t]*$)`,
    String.raw`(△\s*Permission required[^\n]*)`,
    String.raw`^\s*(Permission required[^\n]*)`,
  ],
  busy: [
    String.raw`/esc\s+(?:to\s+)?interrupt/i`,
    String.raw`^\s*(?:Thinking|Generating|Building tool call|Waiting for tool response)\.\.\.`,
  ],
  error: [],
  // 1.18.33 at its prompt: the status line ends `ctrl+p commands` with no `esc interrupt`
  // (busy is read first, so a working screen never gets here).
  idle: [String.raw`Ask anything`, String.raw`/press enter to send/i`, String.raw`ctrl\+p commands`],
  // 1.18.33: `Allow once   Allow always   Reject`, "⇆ select  enter confirm"; Allow once is selected
  // when the dialog opens.
  keys: {approve: ['Enter'], deny: ['Escape']},
  processes: ['opencode'],
  // 1.18.33: `┃  Which colour…?`, `┃  1. Red` … `┃  ↑↓ select  enter submit  esc dismiss` (the matcher
  // reads the lines without their `┃` rail and without blank lines).
  question: [String.raw`^\s*(\S(?:[^\n]*?\S)?)(?: {3,}[^\n]*)?\n\s*1\. [\s\S]*?esc dismiss`, String.raw`/esc dismiss/i`],
}
