/**
 * What a Claude Code session holds, read from its transcript beside the turn parsing
 * (src/adapters/kit/holds.ts): token usage, models, the files its tools wrote, its open tool calls.
 *
 * - Usage: each assistant line's `message.usage`. Claude Code writes one line per content block,
 *   every one with the same `message.id` and usage (test/fixtures/real/claude
 *   happy-permission-prompt-aborted-with-interrupt.jsonl; docs/agents/claude-code.md), so a
 *   message counts once: a repeated id replaces what that id added. `input_tokens` is the
 *   uncached input; `cache_read_input_tokens` and `cache_creation_input_tokens` are the cache.
 * - Changed files: Edit, Write, MultiEdit (`file_path`) and NotebookEdit (`notebook_path`) whose
 *   result came back without `is_error` (a denied or failed edit wrote nothing).
 * - Running tools: a `tool_use` with no `tool_result` yet; a new prompt or an interrupt ends them.
 * - Compacting: nothing in the transcript says one is in progress (the `compact_boundary` line
 *   is written after); the hooks' PreCompact status is the process's (`facts.process.status`).
 */
import type {Contribution, JsonRecord} from '../../core/ingest/adapter.js'
import {lineUsage} from '../../core/model/holds.js'
import {
  addChanged,
  addModel,
  closeCall,
  countMessageUsage,
  type HoldsReader,
  initHolds,
  isRecord,
  type MessageUsageState,
  openCall,
  text,
  timeOf,
} from '../kit/holds.js'
import {factsOf} from './facts.js'

const WRITE_TOOLS: Readonly<Record<string, string>> = {
  Edit: 'file_path',
  MultiEdit: 'file_path',
  NotebookEdit: 'notebook_path',
  Write: 'file_path',
}

export interface ClaudeHoldsState extends MessageUsageState {
  /** Write calls waiting for their result: call id -> path. */
  writes: Record<string, string>
}

function onUsage(s: ClaudeHoldsState, id: string | null, raw: unknown): void {
  const u = isRecord(raw)
    ? lineUsage({
        cacheRead: raw['cache_read_input_tokens'],
        cacheWrite: raw['cache_creation_input_tokens'],
        input: raw['input_tokens'],
        output: raw['output_tokens'],
      })
    : null
  // The same message again (one line per content block): its newest usage replaces the last.
  countMessageUsage(s, id, u)
}

function onAssistant(s: ClaudeHoldsState, rec: JsonRecord): void {
  const message = rec['message']
  if (!isRecord(message)) return
  addModel(s, text(message['model']))
  onUsage(s, text(message['id']), message['usage'])
  const at = timeOf(rec['timestamp'])
  const content = message['content']
  for (const block of Array.isArray(content) ? content : []) {
    if (!isRecord(block) || block['type'] !== 'tool_use') continue
    const id = text(block['id'])
    const name = text(block['name']) ?? 'tool'
    if (id === null) continue
    openCall(s, id, name, at)
    const key = WRITE_TOOLS[name]
    const input = block['input']
    const path = key !== undefined && isRecord(input) ? text(input[key]) : null
    if (path !== null && Object.keys(s.writes).length < 64) s.writes[id] = path
  }
}

const INTERRUPT = '[Request interrupted by user'

function onUser(s: ClaudeHoldsState, rec: JsonRecord): void {
  const message = rec['message']
  const content = isRecord(message) ? message['content'] : undefined
  if (typeof content === 'string') {
    if (rec['isMeta'] !== true) s.open = {}
    return
  }
  if (!Array.isArray(content)) return
  let results = 0
  for (const block of content) {
    if (!isRecord(block)) continue
    if (block['type'] === 'tool_result') {
      results++
      const id = text(block['tool_use_id'])
      if (id === null) continue
      closeCall(s, id)
      const path = s.writes[id]
      delete s.writes[id]
      if (path !== undefined && block['is_error'] !== true) addChanged(s, path)
    } else if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'].startsWith(INTERRUPT)) {
      s.open = {}
    }
  }
  // A typed prompt starts a new turn: whatever was open is over.
  if (results === 0 && rec['isMeta'] !== true && rec['isCompactSummary'] !== true) s.open = {}
}

export const claudeHolds: HoldsReader<ClaudeHoldsState> = {
  background(_s, c: Contribution): readonly string[] {
    const t = factsOf(c, 'transcript')
    if (t === null) return []
    const agents = Array.from({length: Math.max(0, t.backgroundAgents)}, (_, i) => `agent ${i + 1}`)
    return [...t.backgroundTasks.slice(0, 16), ...agents.slice(0, 16)]
  },
  init: () => ({...initHolds(), recent: [], writes: {}}),
  line(s, rec) {
    if (rec['type'] === 'assistant') onAssistant(s, rec)
    else if (rec['type'] === 'user') onUser(s, rec)
    else if (rec['type'] === 'system' && rec['subtype'] === 'turn_duration') s.open = {}
  },
}
