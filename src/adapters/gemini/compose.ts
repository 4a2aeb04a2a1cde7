/**
 * Combine what the chat file(s) and the hooks say about one Gemini CLI session.
 *
 * The chat file is best at history (title, counts, model, error notices) and weak on the
 * present: a reply is written when its stream ends, tool calls only once they finished, and a
 * permission prompt never. Hooks fill that in. Where the two disagree about the turn, the newer
 * evidence wins; a hook's permission prompt stands until the file shows a prompt or reply created
 * after it, or a later hook closes it.
 *
 * A legacy `.json` chat that Gemini CLI migrated on resume leaves a `.jsonl` with the same
 * session id next to it, holding the whole history plus what came after: the newest file wins.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {EMPTY_FACTS, type FactSource, type HardBlock, type SessionFacts} from '../../core/model/types.js'
import {factsOf, geminiFacts} from './facts.js'

type Mutable<T> = {-readonly [K in keyof T]: T[K]}

/** Clock skew allowed between a hook and a line in the file (same machine). */
const SLACK_MS = 1000

function definedOnly(facts: Partial<SessionFacts>): Partial<SessionFacts> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(facts)) if (value !== undefined && key !== 'sources') out[key] = value
  return out
}

/** The chat file to trust: the one that saw the latest message (a migrated `.jsonl` on a tie). */
function newestChat(chats: readonly CheckedContribution[]): CheckedContribution | null {
  let best: CheckedContribution | null = null
  let bestAt = -1
  for (const c of chats) {
    const chat = factsOf(c, 'chat')
    const at = chat?.progressAt ?? c.facts.lastActivityAt ?? 0
    const jsonl = chat?.format === 'jsonl'
    if (best === null || at > bestAt || (at === bestAt && jsonl)) {
      best = c
      bestAt = at
    }
  }

  return best
}

/** The hooks: the turn when newer than the file, asks that stand, the error cleared by a prompt, activity, reply text, cwd. */
function fromHooks(
  f: Mutable<SessionFacts>,
  sources: Record<string, FactSource>,
  hooks: CheckedContribution,
  hasChat: boolean,
  chatAt: number | null,
  messageAt: number | null,
): void {
  const h = hooks.facts
  const x = factsOf(hooks, 'hooks')
  const settledAt = x?.settledAt ?? null
  const exitedAt = x?.exitedAt ?? null
  const promptAt = x?.promptAt ?? null
  const activityAt = x?.activityAt ?? null

  // Did the turn end? The newer of the file's last message and the last turn hook. A session
  // that has no prompt yet has no turn to settle: SessionStart of a fresh TUI leaves it idle.
  const lifecycle = h.sources?.['settled']?.ref === 'SessionStart' || h.sources?.['settled']?.ref === 'SessionEnd'
  if (
    h.settled !== undefined &&
    settledAt !== null &&
    !(lifecycle && f.messages === 0) &&
    (!hasChat || chatAt === null || settledAt + SLACK_MS >= chatAt)
  ) {
    f.settled = h.settled
    if (h.sources?.['settled'] !== undefined) sources['settled'] = h.sources['settled']
  }

  // A permission prompt (or an ask_user dialog) stands until the file shows a prompt or reply
  // made after it, or the CLI exits.
  const stands = (b: HardBlock | null | undefined): b is HardBlock =>
    b != null && (exitedAt === null || exitedAt < b.at) && (messageAt === null || messageAt <= b.at + SLACK_MS)
  if (stands(h.approval)) {
    f.approval = h.approval
    sources['approval'] = h.approval.source
  }

  if (stands(h.question)) {
    f.question = h.question
    sources['question'] = h.question.source
  }

  // An error notice stands until the next prompt.
  if (f.error !== null && promptAt !== null && promptAt > f.error.at) {
    f.error = null
    sources['error'] = {kind: 'hook', ref: 'BeforeAgent'}
  }

  if (activityAt !== null && (f.lastActivityAt === null || activityAt > f.lastActivityAt)) {
    f.lastActivityAt = activityAt
    sources['lastActivityAt'] = {kind: 'hook', ref: x?.event ?? 'hook'}
  }

  if (h.lastAssistantText != null && settledAt !== null && (chatAt === null || settledAt >= chatAt)) {
    f.lastAssistantText = h.lastAssistantText
    sources['lastAssistantText'] = {kind: 'hook', ref: 'AfterAgent'}
  }

  const cwd = x?.cwd ?? null
  if (f.cwd === null && cwd !== null) {
    f.cwd = cwd
    sources['cwd'] = {kind: 'hook', ref: x?.event ?? 'hook'}
  }

  const compactAt = x?.compactAt ?? null
  if (compactAt !== null) sources['compaction'] ??= {kind: 'hook', ref: 'PreCompress'}
  if (exitedAt !== null) sources['exited'] = {kind: 'hook', ref: 'SessionEnd'}
}

export function composeGemini(_nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const chats: CheckedContribution[] = []
  const others: CheckedContribution[] = []
  let hooks: CheckedContribution | null = null
  for (const c of contributions) {
    const r = geminiFacts(c)?.role ?? null
    if (r === 'chat') chats.push(c)
    else if (r === 'hooks') hooks = c
    else others.push(c)
  }

  const chat = newestChat(chats)
  const f: Mutable<SessionFacts> = {...EMPTY_FACTS, ...(chat === null ? {} : definedOnly(chat.facts))}
  const sources: Record<string, FactSource> = {...chat?.facts.sources}
  f.parseErrors = chats.reduce((n, c) => n + (c.facts.parseErrors ?? 0), 0)

  // Sources this adapter does not know (a screen reader, …): plain overlay by priority.
  for (const c of [...others].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0))) {
    Object.assign(f, definedOnly(c.facts))
    Object.assign(sources, c.facts.sources)
    f.parseErrors += c.facts.parseErrors ?? 0
  }

  const chatAt = factsOf(chat, 'chat')?.progressAt ?? null
  const messageAt = factsOf(chat, 'chat')?.messageAt ?? null
  if (hooks !== null) fromHooks(f, sources, hooks, chat !== null, chatAt, messageAt)
  f.sources = sources
  return f
}
