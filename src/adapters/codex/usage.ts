/**
 * What a Codex session holds, read from its rollout beside the turn parsing
 * (src/adapters/kit/holds.ts); docs/agents/codex.md says what each line carries.
 *
 * - Usage: `event_msg` `token_count` `info.total_token_usage` is cumulative for the thread, so
 *   the last valid one is the session's (a `token_count` with `info: null` carries rate limits
 *   only). Codex's `input_tokens` includes the cached ones: input = input_tokens −
 *   cached_input_tokens − cache_write_input_tokens, so input + output + cache = total_tokens.
 * - Models: `turn_context.model`.
 * - Changed files: 0.169 writes an `item_completed` FileChange item (`changes` keyed by absolute
 *   path, `status: "completed"`) for every patch it applied, also one the model ran through
 *   `exec_command` as `apply_patch <<'EOF'` (test/conformance/codex.test.ts `holds`); older
 *   builds a `patch_apply_end` with `success` and `changes`. Without either, an `apply_patch`
 *   call (`custom_tool_call` input, or a `function_call` whose arguments carry the patch) counts
 *   the paths of its `*** Add/Update/Delete File:` and `*** Move to:` lines once its output says
 *   "Success." (0.169 answers "unsupported call: apply_patch" where the tool is not offered).
 * - Running tools: a call with no output yet; a turn's end closes them.
 * - Background: an `exec_command` output "Process running with session ID N", until an
 *   `item_completed` CommandExecution with that `process_id`.
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

export interface CodexHoldsState extends HoldsState {
  /** apply_patch calls waiting for their output: call id -> paths. */
  patches: Record<string, string[]>
  /** Background terminals by process id. */
  terminals: string[]
}

const PATCH_PATH = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm
const RUNNING = /Process running with session ID (\d+)/

/** The paths an apply_patch patch touches. */
export function patchPaths(patch: string): string[] {
  const out: string[] = []
  for (const m of patch.matchAll(PATCH_PATH)) {
    const p = m[1]!.trim()
    if (p !== '' && !out.includes(p)) out.push(p)
  }
  return out
}

function patchOf(p: Record<string, unknown>): string | null {
  if (p['type'] === 'custom_tool_call') return text(p['input'])
  const args = text(p['arguments'])
  if (args === null) return null
  try {
    const parsed: unknown = JSON.parse(args)
    if (isRecord(parsed)) return text(parsed['input']) ?? text(parsed['patch'])
  } catch {
    return args.includes('*** Begin Patch') ? args : null
  }
  return null
}

/** An apply_patch output that says the patch was applied. */
function applied(output: unknown): boolean {
  const t = typeof output === 'string' ? output : isRecord(output) ? text(output['content']) : null
  if (t === null) return false
  if (/^Exit code: [1-9]/m.test(t)) return false
  try {
    const parsed: unknown = JSON.parse(t)
    const meta = isRecord(parsed) ? parsed['metadata'] : null
    if (isRecord(meta) && typeof meta['exit_code'] === 'number') return meta['exit_code'] === 0
  } catch {
    // plain text
  }
  return /^Success\./m.test(t)
}

/** The paths a FileChange item or a patch_apply_end names: its `changes` keys and any move target. */
function changedPaths(changes: unknown): string[] {
  if (!isRecord(changes)) return []
  const out: string[] = []
  for (const [path, change] of Object.entries(changes)) {
    out.push(path)
    const moved = isRecord(change) ? (text(change['move_path']) ?? text(change['movePath'])) : null
    if (moved !== null) out.push(moved)
  }
  return out.slice(0, 64)
}

function onItem(s: CodexHoldsState, p: Record<string, unknown>, at: number | null): void {
  const type = p['type']
  const id = text(p['call_id'])
  if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
    if (id === null) return
    const name = text(p['name']) ?? (type === 'local_shell_call' ? 'shell' : 'tool')
    openCall(s, id, name, at)
    const patch = name === 'apply_patch' ? patchOf(p) : null
    if (patch !== null && Object.keys(s.patches).length < 64) s.patches[id] = patchPaths(patch)
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    if (id === null) return
    closeCall(s, id)
    const paths = s.patches[id]
    delete s.patches[id]
    if (paths !== undefined && applied(p['output'])) for (const path of paths) addChanged(s, path)
    const out = typeof p['output'] === 'string' ? p['output'] : ''
    const bg = out.length < 2000 ? RUNNING.exec(out)?.[1] : undefined
    if (bg !== undefined && !s.terminals.includes(bg) && s.terminals.length < 16) s.terminals.push(bg)
  }
}

function onEvent(s: CodexHoldsState, p: Record<string, unknown>): void {
  const type = p['type']
  if (type === 'token_count') {
    const info = p['info']
    if (!isRecord(info)) return
    const t = info['total_token_usage']
    const cached = isRecord(t) ? (t['cached_input_tokens'] ?? 0) : undefined
    const written = isRecord(t) ? (t['cache_write_input_tokens'] ?? 0) : undefined
    const input = isRecord(t) && typeof t['input_tokens'] === 'number' && typeof cached === 'number' && typeof written === 'number'
    const u = input
      ? lineUsage(
          {cacheRead: cached, cacheWrite: written, input: (t['input_tokens'] as number) - cached - written, output: t['output_tokens']},
          [],
        )
      : null
    if (u === null) s.unknownUsage += 1
    // Cumulative: the last valid total is the thread's.
    else s.usage = u
  } else if (type === 'task_complete' || type === 'turn_aborted' || type === 'task_started') {
    s.open = {}
  } else if (type === 'patch_apply_end') {
    const id = text(p['call_id'])
    if (id !== null) delete s.patches[id]
    if (p['success'] === true) for (const path of changedPaths(p['changes'])) addChanged(s, path)
  } else if (type === 'item_completed' && isRecord(p['item']) && p['item']['type'] === 'FileChange') {
    const item = p['item']
    const id = text(item['id'])
    if (id !== null) delete s.patches[id]
    if (item['status'] === 'completed') for (const path of changedPaths(item['changes'])) addChanged(s, path)
  } else if (type === 'item_completed' && isRecord(p['item']) && p['item']['type'] === 'CommandExecution') {
    const pid = p['item']['process_id']
    const id = typeof pid === 'string' ? pid : typeof pid === 'number' ? String(pid) : null
    if (id !== null) s.terminals = s.terminals.filter((x) => x !== id)
  }
}

export const codexHolds: HoldsReader<CodexHoldsState> = {
  background: (s) => s.terminals.map((t) => `terminal ${t}`),
  init: () => ({...initHolds(), patches: {}, terminals: []}),
  line(s, rec) {
    const type = rec['type']
    const payload = rec['payload']
    const at = timeOf(rec['timestamp'])
    if (type === 'turn_context' && isRecord(payload)) addModel(s, text(payload['model']))
    else if (type === 'response_item' && isRecord(payload)) onItem(s, payload, at)
    else if (type === 'event_msg' && isRecord(payload)) onEvent(s, payload)
    // The envelope-less layout (before ~Aug 2025): items bare on the line.
    else if (payload === undefined) onItem(s, rec, at)
  },
}
