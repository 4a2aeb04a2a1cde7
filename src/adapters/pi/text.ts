/**
 * Small pure helpers for reading pi session entries: loose field access, times, message text.
 */

export type Json = Record<string, unknown>

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

/** ISO 8601 string or epoch ms -> epoch ms; anything else -> null. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : null
  if (typeof value !== 'string' || value.length === 0) return null
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? null : ms
}

/** The later of two times; null counts as "no time". */
export function later(a: number | null, b: number | null): number | null {
  if (a === null) return b
  if (b === null) return a
  return b > a ? b : a
}

/** Cut text to at most max characters, marking the cut with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** The first non-empty line of a text, trimmed, inner whitespace collapsed, at most max chars. */
export function firstLine(text: string, max = 200): string | null {
  for (const line of text.split(/\r?\n/)) {
    const clean = line.replace(/\s+/g, ' ').trim()
    if (clean.length > 0) return clip(clean, max)
  }

  return null
}

/** Whitespace collapsed to single spaces, trimmed, at most max chars. */
export function oneLine(text: string, max = 500): string | null {
  const clean = text.replace(/\s+/g, ' ').trim()
  return clean.length > 0 ? clip(clean, max) : null
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
