/**
 * What pi shows (docs/screen-and-doctor.md), for the tmux fallback. Pure data: regular expressions as
 * strings (see src/adapters/screen.ts). Checked against pi 0.73.1's real screens
 * (test/conformance/pi.test.ts, docs/agents/pi.md):
 *   - busy: a braille spinner line above the editor, `⠹ Working...`, and while pi waits to
 *     retry `⠙ Retrying (1/3) in 2s... (escape to cancel)`;
 *   - error: `Error: 500 mock 500` under the prompt, and once the retries are spent
 *     `Error: Retry failed after 3 attempts: 500 mock 500` (that text is on screen only). Old
 *     errors stay in the scrollback (an answer below them), so only the line right above the
 *     editor counts;
 *   - idle: the editor (a full-width `────` rule above and below the input line), no spinner.
 * pi core has no permission dialog and no question tool ("no permission popups", its
 * docs/usage.md), so there are no approval or question patterns and no dialog keys: `cast
 * approve` / `cast deny` have nothing to answer in pi.
 */
import type {ScreenPatterns} from '../screen-types.js'
import {AGENT_ID} from './identity.js'

const SPINNER = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]'

export const piScreenPatterns: ScreenPatterns = {
  agent: AGENT_ID,
  approval: [],
  busy: [
    String.raw`^\s*${SPINNER} (?:Working|Retrying|Compacting|Summarizing)`,
    String.raw`Working\.\.\.`,
    String.raw`Retrying \(\d+/\d+\)`,
    String.raw`/(?:ctrl\+c|esc) to interrupt/i`,
    String.raw`^\s*${SPINNER}\s`,
  ],
  // An `Error: …` line right above the editor (or at the end of what was captured): an older one
  // followed by an answer is history, and so is one the next reply is streaming under.
  error: [String.raw`^\s*(Error: [^\n]+)(?:\n─{20,}$|(?![\s\S]))`],
  idle: [String.raw`^─{20,}$`, String.raw`^\s*pi>\s*`],
  processes: ['pi'],
  question: [],
}
