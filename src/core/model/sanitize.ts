/**
 * Nothing raw reaches a terminal: a title, state line, ask, error or label
 * came from an agent's file or a user's argument and may carry ESC/OSC sequences, a carriage
 * return or a bidi override that would rewrite what the person sees. Human output shows each
 * such character in caret notation (`^[` for ESC, `^M` for CR, `^?` for DEL), C1 controls and
 * bidi controls as `<U+XXXX>`. JSON output keeps the string as it is (JSON.stringify escapes
 * C0 controls; scripts get the real text).
 *
 * Everything a person reads goes through here: `cast sessions` and the other tables, the watch
 * streams (local and team), `cast notify`'s and `cast daemon --notify`'s lines, and the text of
 * desktop, tmux and macOS notifications (notificationText).
 */

// The page shows agent text with the same functions: they live in wire.ts, the one module the
// page's build shares with the CLI's.
export {hasControl, oneLine, visible} from './wire.js'

// Controls a notification drops: every C0 control but newline, DEL, C1, bidi controls.
// eslint-disable-next-line no-control-regex
const NOTIFY_DROP = /[\u0000-\u0009\u000B-\u001F\u007F\u0080-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g
// A UTF-16 surrogate without its pair: not text D-Bus (UTF-8) can carry.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/**
 * Text for a notification a desktop (or tmux, or macOS) shows: CR and tab become a newline and a
 * space, every other control (NUL included, which would make the call fail and the page be
 * lost), bidi override and isolate is dropped, a lone surrogate becomes U+FFFD. `markup`: the
 * server renders markup in the body (freedesktop `body-markup`), so `&`, `<` and `>` are escaped
 * and an agent's `<a href>` shows as text.
 */
export function notificationText(s: string, markup = false): string {
  const plain = s.replace(/\r\n?/g, '\n').replace(/\t/g, ' ').replace(NOTIFY_DROP, '').replace(LONE_SURROGATE, '\uFFFD')
  return markup ? plain.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : plain
}
