/**
 * What a pi session holds, read from its session file beside the turn parsing
 * (src/adapters/kit/holds.ts); docs/agents/pi.md.
 *
 * - Usage: each assistant `message.usage` ({input, output, cacheRead, cacheWrite}); pi writes an
 *   assistant message once, so every line counts (a failed retry is its own line with zeros).
 * - Changed files: the `write` and `edit` tool calls (`arguments.path`) whose `toolResult` came
 *   back without `isError`.
 * - Running tools: a `toolCall` block with no `toolResult` yet; a user message ends them.
 */
import {lineUsage} from '../../core/model/holds.js'
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

const WRITE_TOOLS = new Set(['write', 'edit'])

export interface PiHoldsState extends HoldsState {
  writes: Record<string, string>
}

function onAssistant(s: PiHoldsState, m: Record<string, unknown>, at: number | null): void {
  addModel(s, text(m['model']))
  const raw = m['usage']
  const u = isRecord(raw)
    ? lineUsage({cacheRead: raw['cacheRead'], cacheWrite: raw['cacheWrite'], input: raw['input'], output: raw['output']})
    : null
  if (u === null) s.unknownUsage += 1
  else
    s.usage = {
      cacheRead: (s.usage?.cacheRead ?? 0) + u.cacheRead,
      cacheWrite: (s.usage?.cacheWrite ?? 0) + u.cacheWrite,
      input: (s.usage?.input ?? 0) + u.input,
      output: (s.usage?.output ?? 0) + u.output,
    }
  const content = m['content']
  for (const b of Array.isArray(content) ? content : []) {
    if (!isRecord(b) || b['type'] !== 'toolCall') continue
    const id = text(b['id'])
    const name = text(b['name']) ?? 'tool'
    if (id === null) continue
    openCall(s, id, name, at)
    const args = b['arguments']
    const path = WRITE_TOOLS.has(name) && isRecord(args) ? text(args['path']) : null
    if (path !== null && Object.keys(s.writes).length < 64) s.writes[id] = path
  }
}

export const piHolds: HoldsReader<PiHoldsState> = {
  init: () => ({...initHolds(), writes: {}}),
  line(s, rec) {
    if (rec['type'] !== 'message' || !isRecord(rec['message'])) return
    const m = rec['message']
    const role = m['role']
    if (role === 'assistant') onAssistant(s, m, timeOf(rec['timestamp']))
    else if (role === 'toolResult') {
      const id = text(m['toolCallId'])
      if (id === null) return
      closeCall(s, id)
      const path = s.writes[id]
      delete s.writes[id]
      if (path !== undefined && m['isError'] !== true) addChanged(s, path)
    } else if (role === 'user') s.open = {}
  },
}
