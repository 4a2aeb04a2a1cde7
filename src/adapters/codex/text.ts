/**
 * Small pure helpers shared by the Codex parsers: values out of loose JSON, times, one-line text.
 */

export type Json = Record<string, unknown>

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

export function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

/** ISO 8601 string, epoch seconds or epoch ms -> epoch ms; anything else -> null. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? Math.round(value * 1000) : value
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

/**
 * Text Codex writes with role "user" that the user never typed: project instructions, the
 * environment block, interruption markers, shell-command echoes, subagent notices.
 */
const INJECTED_PREFIXES = [
  '<environment_context>',
  '<user_instructions>',
  '# AGENTS.md instructions',
  '<INSTRUCTIONS>',
  '<turn_aborted>',
  '<user_shell_command>',
  '<permissions instructions>',
  '<subagent_notification>',
  '<collaboration_mode>',
  '<skills_instructions>',
  '<skill>',
] as const

export function isInjected(text: string): boolean {
  const start = text.trimStart()
  return INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix))
}

/** The text of a response_item message: its input_text / output_text parts joined. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const part of content) {
    if (isRecord(part) && typeof part.text === 'string') parts.push(part.text)
  }

  return parts.join('\n')
}

const encoder = new TextEncoder()

/** Length of a string in UTF-8 bytes. */
export function utf8Length(text: string): number {
  return encoder.encode(text).length
}
