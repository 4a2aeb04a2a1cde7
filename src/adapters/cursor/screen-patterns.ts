/**
 * What the Cursor agent CLI shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data:
 * regular expressions as strings (see src/adapters/screen.ts). Cursor writes no permission
 * prompt to its files. Sources: ccmanager `cursor.ts`, agent-deck.
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

export const cursorScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [
    // The question, the command or file, then the choices (`Run (y) (enter)   Skip (esc or n)`).
    String.raw`/^\s*(?:run|write to|delete)[^\n]*\?\s*\n\s*([^\n]+)\n(?:[^\n]*\n){0,2}?[^\n]*\(y\)/i`,
    String.raw`/^\s*((?:run|write to|delete)[^\n]*\?)\s*\n(?:[^\n]*\n){0,3}?[^\n]*\(y\)/i`,
    String.raw`\(y\) \(enter\)`,
    String.raw`keep \(n\)`,
    String.raw`/(?:allow|run) .+ \(y\)/i`,
    String.raw`skip \(esc or n\)`,
    String.raw`reject & propose changes`,
  ],
  busy: [String.raw`/ctrl\+c to stop/i`, String.raw`^\s*[⬡⬢] \S+ing(?:[^\n]*…|[^\n]*\.{2,})`, String.raw`/(?:ctrl\+c|esc) to interrupt/i`],
  error: [],
  idle: [String.raw`How can I help`, String.raw`Ask questions`, String.raw`^\s*›\s*$`],
  processes: ['cursor-agent'],
  question: [],
}
