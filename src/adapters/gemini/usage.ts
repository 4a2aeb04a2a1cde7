/**
 * What a Gemini CLI session holds, read from its chat log beside the turn parsing
 * (src/adapters/kit/holds.ts); docs/agents/gemini.md.
 *
 * - Usage: each `gemini` message's `tokens` ({input, output, cached, thoughts, tool, total}).
 *   0.61 writes a message again under the same `id` when its tool calls are known, so a repeated
 *   id replaces what it added. `input` includes the cached tokens: input = input − cached +
 *   tool, cache read = cached, output = output + thoughts, so the four add up to `total`.
 * - Changed files: `write_file` and `replace` tool calls (`args.file_path`) with `status`
 *   `success`, each call id once.
 * - Running tools: the log has a call only once it finished (0.61 re-appends the message with
 *   the finished call), so an open call is not known from the file.
 */
import {lineUsage} from '../../core/model/holds.js'
import type {TokenUsage} from '../../core/model/types.js'
import {
  addChanged,
  addModel,
  countMessageUsage,
  type HoldsReader,
  initHolds,
  isRecord,
  type MessageUsageState,
  RECENT_MESSAGE_IDS,
  text,
} from '../kit/holds.js'

const WRITE_TOOLS = new Set(['write_file', 'replace'])

export interface GeminiHoldsState extends MessageUsageState {
  calls: string[]
}

function tokensOf(raw: unknown): TokenUsage | null {
  if (!isRecord(raw)) return null
  const n = (k: string): unknown => raw[k] ?? 0
  const [input, cached, tool, output, thoughts] = [raw['input'], n('cached'), n('tool'), raw['output'], n('thoughts')]
  if (typeof input !== 'number' || typeof cached !== 'number' || typeof tool !== 'number') return null
  if (typeof output !== 'number' || typeof thoughts !== 'number') return null
  return lineUsage({cacheRead: cached, cacheWrite: 0, input: input - cached + tool, output: output + thoughts})
}

export const geminiHolds: HoldsReader<GeminiHoldsState> = {
  init: () => ({...initHolds(), calls: [], recent: []}),
  line(s, rec) {
    if (rec['type'] !== 'gemini') return
    const id = text(rec['id'])
    addModel(s, text(rec['model']))
    const u = tokensOf(rec['tokens'])
    countMessageUsage(s, id, u)
    const calls = rec['toolCalls']
    for (const c of Array.isArray(calls) ? calls : []) {
      if (!isRecord(c) || c['status'] !== 'success' || !WRITE_TOOLS.has(String(c['name']))) continue
      const callId = text(c['id'])
      if (callId === null || s.calls.includes(callId)) continue
      s.calls.push(callId)
      if (s.calls.length > RECENT_MESSAGE_IDS) s.calls.shift()
      const args = c['args']
      addChanged(s, isRecord(args) ? text(args['file_path']) : null)
    }
  },
}
