/**
 * What a Copilot CLI session holds, read from its events.jsonl beside the turn parsing
 * (src/adapters/kit/holds.ts); docs/agents/copilot.md.
 *
 * - Usage: each `session.usage_record`'s `data.usage` ({inputTokens, outputTokens,
 *   cacheReadTokens, cacheWriteTokens}), one line per model request. `inputTokens` includes the
 *   cached ones (as the OpenAI-style APIs it speaks report them): input = inputTokens −
 *   cacheReadTokens − cacheWriteTokens.
 * - Models: `data.usage.model`, `session.model_change` `newModel`.
 * - Changed files: `create`, `edit` and `write` tool runs (`arguments.path`) whose
 *   `tool.execution_complete` says `success: true`.
 * - Running tools: a `tool.execution_start` with no `tool.execution_complete` yet.
 */
import {addUsage, lineUsage, ZERO_USAGE} from '../../core/model/holds.js'
import {
  addChanged,
  addModel,
  closeCall,
  type HoldsReader,
  type HoldsState,
  initHolds,
  isRecord,
  openCall,
  text,
  timeOf,
} from '../kit/holds.js'

const WRITE_TOOLS = new Set(['create', 'edit', 'write'])

export interface CopilotHoldsState extends HoldsState {
  writes: Record<string, string>
}

function onUsage(s: CopilotHoldsState, raw: unknown): void {
  if (!isRecord(raw)) {
    s.unknownUsage += 1
    return
  }
  addModel(s, text(raw['model']))
  const [input, read, write] = [raw['inputTokens'], raw['cacheReadTokens'] ?? 0, raw['cacheWriteTokens'] ?? 0]
  const u =
    typeof input === 'number' && typeof read === 'number' && typeof write === 'number'
      ? lineUsage({cacheRead: read, cacheWrite: write, input: input - read - write, output: raw['outputTokens']}, [])
      : null
  if (u === null) s.unknownUsage += 1
  else s.usage = addUsage(s.usage ?? ZERO_USAGE, u)
}

export const copilotHolds: HoldsReader<CopilotHoldsState> = {
  init: () => ({...initHolds(), writes: {}}),
  line(s, rec) {
    const type = rec['type']
    const d = isRecord(rec['data']) ? rec['data'] : {}
    if (type === 'session.usage_record') onUsage(s, d['usage'])
    else if (type === 'session.model_change') addModel(s, text(d['newModel']))
    else if (type === 'tool.execution_start') {
      const id = text(d['toolCallId'])
      const name = text(d['toolName']) ?? 'tool'
      if (id === null) return
      openCall(s, id, name, timeOf(rec['timestamp']))
      const args = d['arguments']
      const path = WRITE_TOOLS.has(name) && isRecord(args) ? text(args['path']) : null
      if (path !== null && Object.keys(s.writes).length < 64) s.writes[id] = path
    } else if (type === 'tool.execution_complete') {
      const id = text(d['toolCallId'])
      if (id === null) return
      closeCall(s, id)
      const path = s.writes[id]
      delete s.writes[id]
      if (path !== undefined && d['success'] === true) addChanged(s, path)
    } else if (type === 'session.task_complete' || type === 'assistant.turn_end' || type === 'abort') s.open = {}
  },
}
