/**
 * Helpers for the Gemini CLI parsers: the shared adapter helpers, and the text of a
 * `PartListUnion` (a string, one part, or a list of parts).
 */
import {isObject} from '../text.js'

export {clip, firstLine, isObject, type Json, later, num, oneLine, str, toMs} from '../text.js'

/** The text parts of a Gemini `PartListUnion`, joined. Function calls and responses carry none. */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content
  if (isObject(content)) return typeof content['text'] === 'string' ? content['text'] : ''
  if (!Array.isArray(content)) return ''
  const out: string[] = []
  for (const part of content) {
    if (typeof part === 'string') out.push(part)
    else if (isObject(part) && typeof part['text'] === 'string' && part['thought'] !== true) out.push(part['text'])
  }

  return out.join('')
}
