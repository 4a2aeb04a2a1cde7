/**
 * Small pure helpers shared by the Codex parsers: values out of loose JSON, times, one-line text.
 */

import {clip, firstLine, isObject as isRecord, type Json, later, oneLine, str, toMs as isoToMs} from '../text.js'

export {clip, firstLine, isRecord, type Json, later, oneLine, str}

/** ISO 8601 string, epoch seconds or epoch ms -> epoch ms; anything else -> null. */
export function toMs(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e12 ? Math.round(value * 1000) : value
  return typeof value === 'string' ? isoToMs(value) : null
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
  // 0.169: a Stop hook's `decision: block` reason comes back as a harness-made user message
  // (`<hook_prompt hook_run_id="stop:…">…</hook_prompt>`, item type HookPrompt): not a prompt.
  '<hook_prompt',
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
