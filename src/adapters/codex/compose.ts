/**
 * Combine what the rollout file(s), the session index, the engine's process claim and the hook
 * spool know about one Codex thread into SessionFacts.
 *
 * Plain facts merge by priority (transcript 0 < registry 10 < hooks 20); the /rename title from
 * session_index.jsonl (carried in `extra` as typed facts, facts.ts) beats the first prompt. Hook facts
 * about the turn (settled, approval, a new prompt) are different: a hook only reports what was
 * true when it fired, so it stands only while the transcript shows nothing newer. A turn that
 * completed in a hook and was followed by a new task_started in the file reads as working again.
 */
import type {CheckedContribution} from '../../core/ingest/adapter.js'
import {bestProcess} from '../../core/ingest/compose.js'
import {EMPTY_FACTS} from '../../core/model/types.js'
import type {FactSource, ProcessFacts, SessionFacts} from '../../core/model/types.js'
import {factsOf} from './facts.js'
import {later} from './text.js'

type Draft = {-readonly [K in keyof SessionFacts]: SessionFacts[K]}

/** Facts a stale hook may still fill in when nothing else knows them. */
const FILL_IN_ONLY: readonly (keyof SessionFacts)[] = ['model', 'cwd']

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

function isHook(c: CheckedContribution): boolean {
  return factsOf(c, 'hook') !== null
}

function apply(draft: Draft, sources: Record<string, FactSource>, c: CheckedContribution, keys: readonly string[] | null): void {
  const fromSources = c.facts.sources ?? {}
  const target: Record<string, unknown> = draft
  for (const [key, value] of Object.entries(c.facts)) {
    if (key === 'sources' || key === 'parseErrors' || value === undefined) continue
    if (keys !== null && !keys.includes(key)) continue
    if (key === 'lastActivityAt') {
      draft.lastActivityAt = later(draft.lastActivityAt, num(value))
    } else {
      target[key] = value
    }

    const source = fromSources[key]
    if (source) sources[key] = source
  }

  if (keys === null) {
    // Notes with no fact of their own (compaction, archived, subagent, forkedFrom, …).
    for (const [key, source] of Object.entries(fromSources)) sources[key] ??= source
  }
}

/**
 * A rollout whose turn is still open but that no process holds open. Codex 0.169 writes a rollout
 * through one open handle for the life of the thread (the app-server daemon for the TUI, the
 * `codex exec` process headless), and the engine claims its holder on every pass; an open turn
 * nobody holds was left by a process that died (kill -9, a crash), also when cast never saw it
 * alive. No pid is named (0: nothing to signal, nothing to tie a pane to).
 */
function unheldRollout(rollouts: readonly CheckedContribution[]): ProcessFacts | null {
  const last = rollouts.at(-1)
  if (!last || last.processClaim || factsOf(last, 'rollout')?.archived === true) return null
  if (last.facts.settled !== false || (last.facts.turnIndex ?? 0) === 0) return null
  const ref = last.facts.sources?.settled?.ref ?? last.facts.sources?.turnIndex?.ref ?? 'rollout'
  return {alive: false, exited: 'crash', heartbeatAt: null, pid: 0, source: {kind: 'process', ref: `no process holds ${ref}`}, status: null}
}

export function composeCodex(_nativeId: string, contributions: readonly CheckedContribution[]): SessionFacts {
  const draft: Draft = {...EMPTY_FACTS}
  const sources: Record<string, FactSource> = {}
  const plain = contributions
    .filter((c) => !isHook(c))
    .sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0) || (a.facts.lastActivityAt ?? -1) - (b.facts.lastActivityAt ?? -1))
  const hookAt = (c: CheckedContribution): number => num(factsOf(c, 'hook')?.at) ?? 0
  const hooks = contributions.filter(isHook).sort((a, b) => hookAt(a) - hookAt(b))

  for (const c of plain) apply(draft, sources, c, null)

  const rollouts = plain.filter((c) => factsOf(c, 'rollout') !== null)
  let progressAt: number | null = null
  for (const c of rollouts) progressAt = later(progressAt, num(factsOf(c, 'rollout')?.progressAt))
  const turnId = factsOf(rollouts.at(-1), 'rollout')?.turnId ?? null

  for (const h of hooks) {
    const at = hookAt(h)
    const sameTurnDone = h.facts.settled === true && turnId !== null && factsOf(h, 'hook')?.turnId === turnId
    if (progressAt === null || at >= progressAt || sameTurnDone) {
      apply(draft, sources, h, Object.keys(h.facts))
    } else {
      const missing = FILL_IN_ONLY.filter((key) => draft[key] === null)
      apply(draft, sources, h, missing)
    }
  }

  for (const h of hooks) {
    const cwd = factsOf(h, 'hook')?.cwd
    if (draft.cwd === null && typeof cwd === 'string') {
      draft.cwd = cwd
      sources.cwd = {kind: 'hook', ref: 'cwd'}
    }
  }

  for (const c of plain) {
    const index = factsOf(c, 'index')
    if (index === null || typeof index.title !== 'string') continue
    draft.title = index.title
    sources.title = {kind: 'index', offset: num(index.offset) ?? 0, ref: String(index.ref ?? '')}
  }

  const process = bestProcess(contributions) ?? unheldRollout(rollouts)
  if (process) {
    draft.process = process
    sources.process = process.source
  }

  // An escalated command waiting with no output (rollout.ts) is the approval dialog while a live
  // process holds the rollout; a hook's PermissionRequest, when there is one, is not replaced.
  const escalated = factsOf(rollouts.at(-1), 'rollout')?.escalated ?? null
  if (draft.approval === null && escalated !== null && draft.process?.alive === true && !draft.settled) {
    const ref = rollouts.at(-1)?.facts.sources?.settled?.ref ?? 'rollout'
    draft.approval = {at: escalated.at, source: {kind: 'transcript', offset: escalated.offset, ref}, text: escalated.text}
    sources.approval = draft.approval.source
  }

  // Background terminals run inside the process that holds the rollout (the daemon, or exec):
  // with no live holder they are gone with it, and cannot keep the session parked.
  if (draft.backgroundWork > 0 && draft.process?.alive !== true) draft.backgroundWork = 0

  draft.parseErrors = contributions.reduce((sum, c) => sum + (c.facts.parseErrors ?? 0), 0)
  draft.sources = sources
  return draft
}
