/**
 * The text a verb types into an agent (`cast send`, `cast deny --note`, the web composer): data
 * only. One check for all of them, before anything is typed.
 */
import {CastError} from '../base/cast-error.js'
import {EXIT} from '../base/exit-codes.js'

/** The largest message cast types or passes on: above it, exit 2 (never E2BIG from exec). */
export const MAX_MESSAGE_BYTES = 64 * 1024

/**
 * Text is data: refuse (exit 2) control bytes other than newline and tab (ESC would end a
 * bracketed paste or drive the agent's UI; CR submits), and more than MAX_MESSAGE_BYTES.
 * CRLF line ends are taken as newlines.
 */
export function checkMessageText(text: string, what = 'The message'): string {
  const normal = text.replace(/\r\n/g, '\n')
  const bytes = Buffer.byteLength(normal, 'utf8')
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new CastError(`${what} is ${bytes} bytes; cast sends at most ${MAX_MESSAGE_BYTES} (64 KB). Nothing sent.`, EXIT.USAGE, [
      'Put it in a file and send its path.',
    ])
  }

  // eslint-disable-next-line no-control-regex
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/.exec(normal)
  if (bad) {
    const code = bad[0].codePointAt(0)!
    const name =
      code === 0x1b
        ? 'ESC (an escape sequence, e.g. a bracketed-paste end marker)'
        : code === 0x0d
          ? 'CR (carriage return)'
          : `0x${code.toString(16).padStart(2, '0')}`
    throw new CastError(
      `${what} holds a control character, ${name}, at offset ${bad.index}: only newline and tab are sent. Nothing sent.`,
      EXIT.USAGE,
    )
  }

  return normal
}
