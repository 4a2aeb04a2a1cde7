/**
 * Gemini CLI chat records (docs/agents/gemini.md), for both file formats:
 * - ≥ 0.39, an append-only log (`.jsonl`): a metadata line `{sessionId, projectHash, startTime,
 *   lastUpdated, kind?, directories?}`, then message lines `{id, timestamp, type, content, …}`
 *   (the same id is re-appended whenever the message changes: the last line per id wins),
 *   `{"$set": {…}}` metadata patches (`messages: […]` is a checkpoint that replaces the list) and
 *   `{"$rewindTo": "<id>"}` (drop that message and everything after it);
 * - ≤ 0.38, one JSON `ConversationRecord` rewritten whole on every change.
 *
 * Both feed the same state. It must stay small (the engine stores it after every read), so it
 * keeps only the last WINDOW messages, each reduced to a few bytes (id, kind, time, whether a
 * reply asks for more); older ones are folded into two counters. A re-appended id is updated in
 * place if it is still in the window (re-appends touch the newest messages: tokens, tool calls),
 * and a rewind drops the tail of the window. A rewind to a message older than the window, which
 * the state can no longer place, drops the whole window and keeps the folded counts: the count of
 * messages may then be a little high (it keeps folded messages the rewind removed). The first prompt (the title) and
 * the text of the last three replies are kept once, not per message.
 *
 * What the file can tell (the file is weak on the present; hooks sharpen it):
 * - settled: the newest message is a reply with text and no tool calls (tool calls are recorded
 *   only once they finished, so a reply carrying them means the model goes on), an error, or a
 *   "Request cancelled" notice; a newest user message means the turn runs;
 * - error: an `error` message with no prompt or reply after it;
 * - title: the `summary` set by `$set`, else the first prompt; model: the last reply's `model`;
 * - compaction: an `info` notice about compressing, or a `$set.messages` checkpoint.
 */
import {dirname} from 'node:path'

import type {Contribution, FileMatch} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import type {GeminiMatch} from './paths.js'
import {type ChatState, counts, type Msg} from './chat-state.js'
import type {ChatFacts} from './facts.js'
import {later} from './text.js'

export {applyMessage, applyMeta, type ChatState, feedChatLine, initChat, type Msg, readLegacy, rewindTo, WINDOW} from './chat-state.js'

/** The turn has ended: the newest prompt, reply, error or cancel notice says so. */
export function isSettled(s: ChatState): boolean {
  for (let i = s.win.length - 1; i >= 0; i--) {
    const m = s.win[i]!
    if (m.k === 'u' || m.k === 'r') return false
    if (m.k === 'g') return m.more !== 1
    if (m.k === 'e' || m.cancel === 1) return true
  }

  return false
}

/** The newest error with no prompt or reply after it. */
export function openError(s: ChatState): Msg | null {
  for (let i = s.win.length - 1; i >= 0; i--) {
    const m = s.win[i]!
    if (m.k === 'u' || m.k === 'g' || m.k === 'r') return null
    if (m.k === 'e') return m
  }

  return null
}

export function messageCount(s: ChatState): number {
  return s.foldedMessages + s.win.filter(counts).length
}

export function turnCount(s: ChatState): number {
  return s.foldedTurns + s.win.filter((m) => m.k === 'u').length
}

export function chatContribution(s: ChatState, path: string, match: FileMatch): Contribution[] {
  const m = match as GeminiMatch
  const parent = m.kind === 'jsonl' ? (m.parentNativeId ?? null) : null
  // A main chat's file name holds only 8 characters of the id: the metadata line has all of it.
  const nativeId = s.sessionId ?? (parent !== null ? (m.nativeId ?? null) : null)
  if (nativeId === null) return []
  const jsonl = m.kind === 'jsonl'
  const at = (fact: string): FactSource => {
    const offset = s.src[fact]
    return offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  }

  const sources: Record<string, FactSource> = {}
  for (const fact of ['messages', 'settled', 'lastOutputAt', 'model', 'lastAssistantText', 'createdAt', 'lastActivityAt', 'turnIndex'])
    sources[fact] = at(fact)
  sources['turnStartedAt'] = at('turnIndex')
  if (s.compactions > 0 || s.checkpoints > 0) sources['compaction'] = at(s.src['compaction'] !== undefined ? 'compaction' : 'checkpoint')

  let title: string | null = null
  if (s.summary !== null) {
    title = s.summary
    sources['title'] = at('summary')
  } else if (s.prompt !== null) {
    title = s.prompt.text
    sources['title'] = at('title')
  }

  const cwd = m.cwd ?? s.dir0
  // The project folder (…/tmp/<project>) whose marker or projects.json entry named the path.
  const projectDir = dirname(dirname(parent === null ? path : dirname(path)))
  if (cwd !== null) sources['cwd'] = m.cwd != null ? {kind: 'project', ref: projectDir} : at('createdAt')

  const last = s.win.filter((x) => x.k === 'u').at(-1)
  const err = openError(s)
  const error: HardBlock | null = err === null ? null : {at: err.at ?? s.progressAt ?? 0, source: at('settled'), text: err.x ?? 'error'}
  if (error !== null) sources['error'] = error.source
  if (parent !== null) sources['parentNativeId'] = {kind: 'transcript', ref: path}

  const facts: Partial<SessionFacts> = {
    createdAt: s.startTime ?? s.win[0]?.at ?? null,
    cwd,
    error,
    lastActivityAt: later(later(s.startTime, s.lastUpdated), s.progressAt),
    lastAssistantText: s.replies.at(-1)?.text ?? null,
    lastOutputAt: s.lastOutputAt,
    messages: messageCount(s),
    model: s.model,
    parentNativeId: parent,
    settled: isSettled(s),
    sources,
    title,
    turnIndex: turnCount(s),
    turnStartedAt: last?.at ?? null,
  }
  const extra: ChatFacts = {
    checkpoints: s.checkpoints,
    compactions: s.compactions,
    format: jsonl ? 'jsonl' : 'json',
    kind: s.kind,
    messageAt: s.messageAt,
    progressAt: s.progressAt,
    project: m.project ?? null,
    rewinds: s.rewinds,
    role: 'chat',
    summary: s.summary !== null,
  }
  return [{extra, facts, nativeId, priority: 0}]
}
