/**
 * The older single-file layout, `<base>/history-session-state/<id>.json`: one pretty-printed
 * object per session, `{sessionId, startTime, chatMessages: [{role, content, tool_calls?}],
 * timeline: […]}` (shapes as public readers of it document; Copilot CLI 1.0.102 no longer
 * writes it). Read as history: its prompts and replies, a title, nothing live (no lock, no
 * process, the turn settled).
 */

import type {Contribution} from '../../core/ingest/adapter.js'
import type {FactSource} from '../../core/model/types.js'
import type {LegacyFacts} from './facts.js'
import {legacyId} from './paths.js'
import {clip, firstLine, isObject, str, toMs} from './text.js'

const LEGACY: LegacyFacts = {role: 'legacy'}

function text(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map((p) => (typeof p === 'string' ? p : isObject(p) && typeof p['text'] === 'string' ? p['text'] : '')).join('\n')
}

/** Throws on JSON that does not parse (a file caught mid-write): the engine counts it. */
export function parseLegacy(path: string, body: string): Contribution[] {
  const doc = JSON.parse(body) as unknown
  if (!isObject(doc)) return []
  const nativeId = str(doc['sessionId']) ?? legacyId(path)
  const messages = Array.isArray(doc['chatMessages']) ? doc['chatMessages'] : []
  let prompts = 0
  let replies = 0
  let title: string | null = null
  let last: string | null = null
  for (const m of messages) {
    if (!isObject(m)) continue
    const role = str(m['role'])
    const t = text(m['content']).trim()
    if (role === 'user') {
      prompts += 1
      if (title === null && t !== '') title = firstLine(t)
    } else if (role === 'assistant') {
      replies += 1
      if (t !== '') last = t
    }
  }

  const createdAt = toMs(doc['startTime'])
  const source: FactSource = {kind: 'transcript', ref: path}
  return [
    {
      extra: LEGACY,
      facts: {
        createdAt,
        lastActivityAt: createdAt,
        lastAssistantText: last === null ? null : clip(last, 4000),
        messages: prompts + replies,
        parentNativeId: null,
        settled: true,
        sources: {messages: source, settled: source, title: source},
        title,
        turnIndex: prompts,
      },
      nativeId,
      priority: 0,
    },
  ]
}
