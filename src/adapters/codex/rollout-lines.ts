/**
 * The Codex rollout's line handlers: one record (parsed once by the engine) in, the parser's
 * state (rollout-state.ts) updated. Both layouts: the `{timestamp, type, payload}` envelope, and
 * the older bare first line and bare response items.
 */
import type {JsonRecord} from '../../core/ingest/adapter.js'
import {clip, contentText, isRecord, oneLine, str, toMs} from './text.js'
import type {Json} from './text.js'
import {
  closeBackground,
  closeCall,
  endTurn,
  MAX_ASSISTANT_TEXT,
  MAX_ERROR_TEXT,
  MAX_OPEN_CALLS,
  openCall,
  output,
  PROGRESS_EVENTS,
  prompt,
  repliedAndIdle,
  reply,
  type RolloutState,
  startTurn,
  touch,
} from './rollout-state.js'

/** What an exec output says when its process keeps running in the background, and with what id. */
const RUNNING = 'Process running with session ID'
const RUNNING_ID = /Process running with session ID (\d+)/

function sessionMeta(s: RolloutState, p: Json, at: number | null, offset: number): void {
  // Forked threads copy the parent's history, its session_meta included: the first one is ours.
  if (s.metaSeen) return
  s.metaSeen = true
  s.createdAt = toMs(p.timestamp) ?? at
  s.src.createdAt = offset
  const cwd = str(p.cwd)
  if (cwd !== null) {
    s.cwd = cwd
    s.src.cwd = offset
  }

  const model = str(p.model)
  if (model !== null && s.model === null) {
    s.model = model
    s.src.model = offset
  }

  const source = p.source
  let parent = str(p.parent_thread_id)
  if (isRecord(source) && 'subagent' in source) {
    const sub = source.subagent
    if (typeof sub === 'string') {
      s.subagent = sub
    } else if (isRecord(sub)) {
      const kind = Object.keys(sub)[0] ?? 'subagent'
      s.subagent = kind
      const detail = sub[kind]
      if (isRecord(detail)) parent = str(detail.parent_thread_id) ?? parent
    } else {
      s.subagent = 'subagent'
    }

    s.src.subagent = offset
  } else if (parent !== null) {
    s.subagent = 'subagent'
    s.src.subagent = offset
  }

  if (parent !== null) {
    s.parentNativeId = parent
    s.src.parentNativeId = offset
  }

  const forked = str(p.forked_from_id)
  if (forked !== null) {
    s.forkedFrom = forked
    s.src.forkedFrom = offset
  }
}

function turnContext(s: RolloutState, p: Json, offset: number): void {
  const model = str(p.model)
  if (model !== null) {
    s.model = model
    s.src.model = offset
  }

  const cwd = str(p.cwd)
  if (cwd !== null) {
    s.cwd = cwd
    s.src.cwd = offset
  }

  const turnId = str(p.turn_id)
  if (turnId !== null && s.turnOpen && s.turnId === null) s.turnId = turnId
  const policy = str(p.approval_policy)
  if (policy !== null) s.approvalPolicy = policy
}

/** An `exec_command` call asking to run outside the sandbox: its command, else null. */
function escalatedCommand(p: Json): string | null {
  if (p.name !== 'exec_command' || typeof p.arguments !== 'string' || !p.arguments.includes('require_escalated')) return null
  try {
    const args: unknown = JSON.parse(p.arguments)
    if (!isRecord(args) || args.sandbox_permissions !== 'require_escalated') return null
    return str(args.cmd) ?? 'exec_command'
  } catch {
    return null
  }
}

function responseItem(s: RolloutState, p: Json, at: number | null, offset: number): void {
  switch (p.type) {
    case 'message': {
      const text = contentText(p.content)
      if (p.role === 'user') {
        prompt(s, text, 'item', at, offset)
      } else if (p.role === 'assistant') {
        reply(s, text, 'item', at, offset)
        s.lastItemAssistant = true
      }

      return
    }

    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      openCall(s, p.call_id)
      const cmd = escalatedCommand(p)
      if (cmd !== null && typeof p.call_id === 'string') s.escalated = {at, call: p.call_id, cmd: oneLine(cmd) ?? cmd, offset}
      s.lastItemAssistant = false
      output(s, at, offset)
      return
    }

    case 'function_call_output':
    case 'custom_tool_call_output': {
      closeCall(s, p.call_id)
      s.lastItemAssistant = false
      const out = typeof p.output === 'string' ? p.output : ''
      // includes() first: the regexes need these literals, and V8 finds a literal in a big
      // output ~10x faster than the regex does (most outputs have neither).
      const running = out.includes(RUNNING) ? RUNNING_ID.exec(out) : null
      if (running && typeof p.call_id === 'string') {
        const list = (s.background ??= [])
        if (!list.some(([c]) => c === p.call_id)) list.push([p.call_id, running[1]!])
        if (list.length > MAX_OPEN_CALLS) list.shift()
        s.src.backgroundWork = offset
      } else if (s.background && s.background.length > 0 && out.includes('Process exited with code')) {
        // write_stdin polling a background process: its output names the session again.
        const id = /session ID (\d+)/.exec(out)?.[1]
        if (id !== undefined) closeBackground(s, (b) => b[1] === id, offset)
      }

      return
    }

    case 'reasoning':
    case 'web_search_call': {
      s.lastItemAssistant = false
      output(s, at, offset)
      return
    }

    case 'compaction': {
      s.compactions += 1
      s.src.compaction = offset
      return
    }

    default:
    // ghost_snapshot and item types this parser does not know: not part of the turn's shape.
  }
}

function rollBack(s: RolloutState, turns: number, offset: number): void {
  let n = Math.max(0, Math.floor(turns))
  s.rolledBackTurns += n
  s.src.messages = offset
  if (n === 0) return
  if (!s.curDropped) {
    s.cur = [0, 0, 0, 0]
    s.curDropped = true
    n -= 1
  }

  while (n > 0 && s.recent.length > 0) {
    s.done -= s.recent.pop() ?? 0
    n -= 1
  }

  if (s.done < 0) s.done = 0
}

/** item_completed (0.169): the prompt and the reply as items; a command's exit. */
function itemCompleted(s: RolloutState, p: Json, at: number | null, offset: number): void {
  // 0.169: the prompt and the reply as items (`UserMessage`, `AgentMessage`), beside their
  // response_item copies; CommandExecution and other items carry no message.
  const item = p.item
  if (!isRecord(item)) return
  if (item.type === 'UserMessage') prompt(s, itemText(item.content), 'event', at, offset)
  else if (item.type === 'AgentMessage') reply(s, itemText(item.content), 'event', at, offset)
  else output(s, at, offset)
  // A command's item completes when the command exits: also a background terminal's, after
  // the turn that started it is over.
  if (item.type === 'CommandExecution' && s.background && s.background.length > 0) {
    closeBackground(
      s,
      (b) =>
        b[0] === item.id ||
        ((typeof item.process_id === 'number' || typeof item.process_id === 'string') && b[1] === String(item.process_id)),
      offset,
    )
  }
}

/** task_started: a turn begins (or the one an older-style prompt opened is adopted). */
function taskStarted(s: RolloutState, p: Json, at: number | null, offset: number): void {
  if (s.error) {
    s.error = null
    s.src.error = offset
  }

  // An older-style prompt may already have opened this turn: adopt it rather than count twice.
  if (!(s.turnOpen && !s.turnHasTask && !repliedAndIdle(s))) startTurn(s, at ?? toMs(p.started_at), offset)
  s.turnHasTask = true
  s.turnOpen = true
  s.turnId = str(p.turn_id) ?? s.turnId
  s.src.settled = offset
}

/** task_complete: the turn ends, with its error (0.169) and its last reply. */
function taskComplete(s: RolloutState, p: Json, at: number | null, offset: number): void {
  endTurn(s, offset)
  // 0.169 writes no `error` event: a turn that failed (retries exhausted, 401, 500) just
  // ends, with `error: {message, codex_error_info}` on its task_complete.
  const failed = p.error
  if (isRecord(failed) || typeof failed === 'string') {
    const message = typeof failed === 'string' ? failed : str(failed.message)
    s.error = {at, offset, text: (message === null ? null : oneLine(message, MAX_ERROR_TEXT)) ?? 'error'}
    s.src.error = offset
  }

  const last = str(p.last_agent_message)
  if (last !== null && last.trim().length > 0) {
    s.lastAssistantText = clip(last.trim(), MAX_ASSISTANT_TEXT)
    s.src.lastAssistantText = offset
  }
}

function eventMsg(s: RolloutState, p: Json, at: number | null, offset: number): void {
  switch (p.type) {
    case 'task_started': {
      taskStarted(s, p, at, offset)
      return
    }

    case 'task_complete': {
      taskComplete(s, p, at, offset)
      return
    }

    case 'turn_aborted': {
      endTurn(s, offset)
      return
    }

    case 'user_message': {
      const kind = p.kind
      if (typeof kind === 'string' && kind !== 'plain') return
      if (typeof p.message === 'string') prompt(s, p.message, 'event', at, offset)
      return
    }

    case 'agent_message': {
      if (typeof p.message === 'string') reply(s, p.message, 'event', at, offset)
      return
    }

    case 'item_completed': {
      itemCompleted(s, p, at, offset)
      return
    }

    case 'agent_reasoning': {
      output(s, at, offset)
      return
    }

    case 'error': {
      const text = (typeof p.message === 'string' ? oneLine(p.message, MAX_ERROR_TEXT) : null) ?? 'error'
      s.error = {at, offset, text}
      s.src.error = offset
      return
    }

    case 'context_compacted': {
      s.compactions += 1
      s.src.compaction = offset
      return
    }

    case 'thread_rolled_back': {
      rollBack(s, typeof p.num_turns === 'number' ? p.num_turns : 0, offset)
      return
    }

    default:
    // stream_error is a retry in progress, not an error; token_count, warnings, hook runs and
    // anything newer than this parser carry no turn state.
  }
}

/** The text parts of a 0.169 item's content (`[{type: "text"|"Text", text}]`). */
function itemText(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === 'string' ? content : ''
  return content
    .map((part: unknown) => (isRecord(part) && typeof part.text === 'string' ? part.text : ''))
    .filter((t) => t.length > 0)
    .join('\n')
}

/** Feed one line, parsed by the engine (a JSON object; malformed lines never reach here). */
export function feedRollout(s: RolloutState, value: JsonRecord, offset: number): boolean {
  if (typeof value.type === 'string' && 'payload' in value) {
    s.format ??= 'envelope'
    const at = toMs(value.timestamp)
    const payload = value.payload
    if (!isRecord(payload)) {
      touch(s, at, offset, false)
      return true
    }

    switch (value.type) {
      case 'session_meta':
        touch(s, at, offset, false)
        sessionMeta(s, payload, at, offset)
        return true
      case 'turn_context':
        touch(s, at, offset, false)
        turnContext(s, payload, offset)
        return true
      case 'response_item':
        touch(s, at, offset, true)
        responseItem(s, payload, at, offset)
        return true
      case 'event_msg':
        touch(s, at, offset, PROGRESS_EVENTS.has(String(payload.type)))
        eventMsg(s, payload, at, offset)
        return true
      case 'compacted':
        touch(s, at, offset, true)
        s.compactions += 1
        s.src.compaction = offset
        return true
      default:
        touch(s, at, offset, false)
        return true
    }
  }

  // The older layout.
  if ('record_type' in value) return true
  if (typeof value.type === 'string') {
    responseItem(s, value, null, offset)
    return true
  }

  if (!s.metaSeen && typeof value.id === 'string') {
    s.format = 'legacy'
    s.metaSeen = true
    s.createdAt = toMs(value.timestamp)
    s.src.createdAt = offset
    touch(s, s.createdAt, offset, true)
  }

  return true
}
