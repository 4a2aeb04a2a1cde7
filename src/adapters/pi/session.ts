/**
 * Resumable parser for pi session files (docs/agents/pi.md; pi's own
 * `packages/coding-agent/src/core/session-manager.ts`).
 *
 * A file is a header line `{type:"session", version?, id, timestamp, cwd, parentSession?}` then
 * entries. v1 entries carry no ids (the file is a plain list); v2 and v3 entries have `id` and
 * `parentId` and form a tree whose current leaf, when pi loads the file, is the last entry written.
 *
 * Following the leaf without keeping the tree. pi appends every entry as a child of the current
 * leaf, so while nobody moves the leaf each entry's `parentId` is the id of the entry written just
 * before it. The leaf only jumps when the user navigates (`/tree`, branching): pi then writes a
 * `branch_summary`, or simply appends the next entry under an older one. The state therefore keeps
 * the previous entry's id and the turn state of the chain ending at the leaf (`tail`):
 * - a message entry sets the tail itself (a prompt or a tool result: working; an assistant by its
 *   `stopReason`);
 * - a non-message entry (model change, label, session name, compaction, custom data) that continues
 *   the chain leaves it as it was;
 * - an entry that does not continue the chain, or a branch summary, means the user moved the leaf
 *   by hand, which pi only lets them do at the prompt: settled, and any error banner of the old
 *   branch is no longer on screen.
 * So the state is a few scalars however large the file grows, and it is plain JSON.
 *
 * pi writes a message when it ends (message_end), so a reply still streaming is not in the file:
 * a prompt followed by silence reads as a turn in progress, which is what it is. pi 0.73.1 writes
 * no file at all before the first assistant message (SessionManager `_persist` waits for one), so
 * a first turn still running has no file yet.
 *
 * Retries (seen on pi 0.73.1, `AgentSession._handleRetryableError`): every failed request is an
 * assistant entry of its own, `{"content":[],"stopReason":"error","errorMessage":"500 …"}`, and
 * when the error is transient (overloaded, rate limit, 429/5xx, network, timeout…) pi waits 2 s,
 * 4 s, 8 s and continues the turn from it, up to 3 retries. So an error leaf is pi retrying while
 * the run of failed requests is at most 3 long and the error is one pi retries; the fourth, or an
 * error pi does not retry (401, 529 without "overloaded", a bad request), ends the turn: the
 * banner `Retry failed after 3 attempts: …` (on screen only) is the hard block. A failed request
 * with no content is not a message.
 */
import type {Contribution, FileMatch, JsonlParser} from '../../core/ingest/adapter.js'
import type {FactSource, HardBlock, SessionFacts} from '../../core/model/types.js'
import type {SessionFileFacts} from './facts.js'
import {feedPi} from './session-lines.js'
import {initPi, type PiState} from './session-state.js'

export {feedPi, isRetryableError, PI_MAX_RETRIES} from './session-lines.js'
export {initPi, type PiState, type Tail} from './session-state.js'

/** The turn has ended: the leaf assistant stopped (stop, length, aborted, error) or the user moved the leaf. */
export function isSettled(s: PiState): boolean {
  return s.tail === 'settled' || s.tail === 'error'
}

export function piTitle(s: PiState): {title: string | null; offset: number | undefined} {
  if (s.name !== null) return {offset: s.src.name, title: s.name}
  if (s.firstPrompt !== null) return {offset: s.src.firstPrompt, title: s.firstPrompt}
  return {offset: s.src.firstAny, title: s.firstAny}
}

export function piContribution(s: PiState, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution<SessionFileFacts> {
  const at = (offset: number | undefined): FactSource =>
    offset === undefined ? {kind: 'transcript', ref: path} : {kind: 'transcript', offset, ref: path}
  const sources: Record<string, FactSource> = {}
  for (const [fact, offset] of Object.entries(s.src)) {
    if (fact === 'name' || fact === 'firstPrompt' || fact === 'firstAny') continue
    sources[fact] = at(offset)
  }

  const title = piTitle(s)
  if (title.title !== null) sources.title = at(title.offset)
  const error: HardBlock | null =
    s.tail === 'error' && s.error !== null
      ? {at: s.error.at ?? s.lastActivityAt ?? 0, source: at(s.error.offset), text: s.error.text}
      : null
  const facts: Partial<SessionFacts> = {
    createdAt: s.createdAt,
    cwd: s.cwd,
    error,
    lastActivityAt: s.lastActivityAt,
    lastAssistantText: s.lastAssistantText,
    lastOutputAt: s.lastOutputAt,
    messages: s.users + s.assistants,
    model: s.model,
    // A fork is a conversation of its own that the user carries on: it stays a row of its own
    // (folding is for subagents). The link is kept in `extra.forkedFrom` and its source.
    parentNativeId: null,
    settled: isSettled(s),
    sources,
    title: title.title,
    turnIndex: s.turnIndex,
    turnStartedAt: s.turnStartedAt,
  }
  const extra: SessionFileFacts = {
    compactions: s.compactions,
    forkedFrom: s.forkedFrom,
    headerId: s.headerId,
    pi: 'session',
    provider: s.provider,
    tail: s.tailWhy,
    version: s.version ?? (s.header ? 1 : null),
  }
  return {
    extra,
    facts,
    nativeId: match.nativeId,
    priority: 0,
  }
}

export const piParser: JsonlParser<PiState> = {
  // A file with neither a header nor a message yet (empty, or only garbage) is no session.
  contributions: (state, path, match) => (state.header || state.users + state.assistants > 0 ? [piContribution(state, path, match)] : []),
  init: (_path, match) => initPi(match.nativeId),
  line: feedPi,
}
