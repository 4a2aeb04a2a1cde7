/**
 * Resumable parser for Codex rollout files (docs/agents/codex.md).
 *
 * Two layouts are read:
 * - current: every line is `{timestamp, type, payload}` with type session_meta, turn_context,
 *   response_item, event_msg, compacted (unknown types are ignored);
 * - older (before ~Aug 2025): a bare first line `{id, timestamp, instructions, git}`, then
 *   `{record_type: "state"}` lines and bare response items with no envelope and no timestamps.
 *
 * The line handlers are in rollout-lines.ts, the state in rollout-state.ts; this module turns the
 * state into the file's contribution.
 */
import type {FileMatch, Contribution, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import type {RolloutFacts} from './facts.js'
import {feedRollout} from './rollout-lines.js'
import {initRollout, repliedAndIdle, type RolloutState, tallyCount} from './rollout-state.js'

export {feedRollout} from './rollout-lines.js'
export {initRollout, type RolloutState} from './rollout-state.js'

/** Whether the current turn has ended (or no turn ever started). */
export function isSettled(s: RolloutState): boolean {
  if (s.turnIndex === 0) return false
  if (!s.turnOpen) return true
  return !s.turnHasTask && repliedAndIdle(s)
}

export function rolloutContribution(s: RolloutState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution {
  const at = (offset: number | undefined): FactSource =>
    offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  const sources: Record<string, FactSource> = {}
  for (const [fact, offset] of Object.entries(s.src)) sources[fact] = at(offset)
  if (match.role === 'archived') sources.archived = {kind: 'transcript', ref: path}
  const error: HardBlock | null = s.error ? {at: s.error.at ?? s.lastActivityAt ?? 0, source: at(s.error.offset), text: s.error.text} : null
  // An escalated command with no output under a policy that asks the user (docs/agents/codex.md):
  // Codex writes no approval line, so this open call is the request. Compose keeps it only while
  // a live process holds the rollout.
  const asks = s.approvalPolicy === 'on-request' || s.approvalPolicy === 'untrusted'
  const escalated = asks && s.turnOpen && s.escalated ? s.escalated : null
  const facts: Partial<SessionFacts> = {
    backgroundWork: s.background?.length ?? 0,
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.done + (s.curDropped ? 0 : tallyCount(s.cur)),
    model: s.model,
    parentNativeId: s.parentNativeId,
    settled: isSettled(s),
    sources,
    title: s.title,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  const extra: RolloutFacts = {
    archived: match.role === 'archived',
    codex: 'rollout',
    compactions: s.compactions,
    forkedFrom: s.forkedFrom,
    format: s.format,
    escalated: escalated === null ? null : {at: escalated.at ?? s.lastActivityAt ?? 0, offset: escalated.offset, text: escalated.cmd},
    openCalls: s.openCalls.length,
    progressAt: s.progressAt,
    rolledBackTurns: s.rolledBackTurns,
    subagent: s.subagent,
    turnId: s.turnId,
  }
  return {
    extra,
    facts,
    nativeId: match.nativeId,
    priority: 0,
  }
}

export const rolloutParser: JsonlParser<RolloutState> = {
  contributions: (state, path, match) => [rolloutContribution(state, path, match)],
  init: (_path, match) => initRollout(match.nativeId),
  line: feedRollout,
}
