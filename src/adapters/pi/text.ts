/**
 * Small pure helpers for reading pi session entries: loose field access, times, message text.
 */

import {clip, firstLine, isObject as isRecord, type Json, later, oneLine, str, toMs as isoToMs} from '../text.js'

export {clip, firstLine, isRecord, type Json, later, oneLine, str}

/** ISO 8601 string or epoch ms -> epoch ms; anything else -> null. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null
  return typeof value === 'string' ? isoToMs(value) : null
}

/** The text of a message's content: a string, or its `text` blocks joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const block of content) {
    if (isRecord(block) && block.type === 'text' && typeof block.text === 'string') parts.push(block.text)
  }

  return parts.join('\n')
}

/** Whether a content list asks for a tool (`toolCall` blocks). */
export function hasToolCall(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isRecord(b) && b.type === 'toolCall')
}

/**
 * pi keeps a provider's error as it came, often a status and a JSON body
 * (`429 {"type":"error","error":{"type":"rate_limit_error","message":"…"}}`). Say it as the
 * banner would: the status, the error type and its message. Anything else is returned as is.
 */
export function readableError(text: string): string {
  const brace = text.indexOf('{')
  if (brace === -1) return text
  let body: unknown
  try {
    body = JSON.parse(text.slice(brace))
  } catch {
    return text
  }

  if (!isRecord(body)) return text
  const inner = isRecord(body.error) ? body.error : body
  const message = str(inner.message)
  if (message === null) return text
  const type = str(inner.type) ?? str(inner.code)
  const prefix = text.slice(0, brace).trim()
  return [prefix, type ? `${type}:` : null, message].filter((x) => x !== null && x !== '').join(' ')
}
