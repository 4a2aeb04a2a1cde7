/**
 * The one filter predicate every view uses (`cast sessions`, `-w`, `cast feed`, the notifier,
 * `cast inbox` and `cast web`): is this session in the view these filters select? Pure: `me` and
 * `now` are passed in. Whose view it is (docs/contract.md §3.7) comes first, then the recency window, then
 * the filters a person typed.
 */
import {isQuiet} from './attention.js'
import {inInbox, isOwnedBy, sameIdentity} from './ownership.js'
import type {DecisionCard} from './session-shape.js'
import type {Agent, Bucket, SessionFacts, SessionRecords, WorkState} from './types.js'

/** What the predicate reads of a session (a stored row has every field). */
export interface ViewRow {
  readonly agent: Agent
  readonly state: WorkState
  readonly bucket: Bucket
  readonly parentId: string | null
  readonly runner: string | null
  readonly firstSeenAt: number
  readonly workingSince: number | null
  readonly labels: Readonly<Record<string, string>>
  readonly facts: Pick<SessionFacts, 'approval' | 'cwd' | 'lastActivityAt' | 'lastOutputAt' | 'question'>
  readonly records: Pick<SessionRecords, 'declaration' | 'owners' | 'pinned'>
  readonly decision: Pick<DecisionCard, 'answer'> | null
}

export interface ViewFilters {
  /** Every session the store holds (the team's view), not only my inbox. */
  readonly team?: boolean
  /** My inbox without its recency window (`--all`). */
  readonly all?: boolean
  /** The recency window; the model's default (7 days) when omitted. */
  readonly recencyMs?: number
  /** Every session must have activity inside the recency window, asks included (the feed). */
  readonly recentOnly?: boolean
  /** Top-level sessions only: subagent children left out (the feed). */
  readonly topLevel?: boolean
  /** Only sessions this identity owns or runs; null or absent: everyone's. */
  readonly member?: string | null
  readonly states?: readonly string[]
  readonly agent?: readonly string[]
  /** The folder (and the folders under it) the sessions run in. */
  readonly cwd?: string | null
  /** Only sessions carrying one of my labels. */
  readonly label?: readonly string[]
  /** Only working sessions past the quiet band (docs/contract.md §3.5). */
  readonly quiet?: boolean
}

/**
 * The recency window never hides what waits on the person: an open question, a permission
 * prompt, a decision card, a declared blocked, a pinned session.
 */
export function outlivesRecency(row: ViewRow): boolean {
  if (row.records.pinned || row.bucket === 'questions') return true
  if (row.state !== 'needs_input') return false
  const asks = (row.decision !== null && row.decision.answer === null) || row.facts.approval !== null || row.facts.question !== null
  return asks || row.records.declaration?.status === 'blocked'
}

/** The folder `dir` is `cwd` or under it; an empty or absent `cwd` takes every folder. */
export function underFolder(cwd: string | null | undefined, dir: string | null): boolean {
  if (!cwd) return true
  return dir !== null && (dir === cwd || dir.startsWith(cwd.endsWith('/') ? cwd : cwd + '/'))
}

const listed = (list: readonly string[] | undefined, value: string): boolean => !list || list.length === 0 || list.includes(value)

/** Is this session in the view the filters select? */
export function inView(row: ViewRow, me: string, now: number, f: ViewFilters): boolean {
  const lastActivityAt = row.facts.lastActivityAt ?? row.firstSeenAt
  if (f.topLevel && row.parentId !== null) return false
  if (f.recentOnly && now - lastActivityAt > (f.recencyMs ?? Number.POSITIVE_INFINITY)) return false
  const all = f.all === true || outlivesRecency(row)
  if (!f.team && !inInbox({all, lastActivityAt, me, now, owners: row.records.owners, recencyMs: f.recencyMs, runner: row.runner}))
    return false
  if (f.member && !isOwnedBy(row.records.owners, f.member) && !(row.runner !== null && sameIdentity(row.runner, f.member))) return false
  if (!listed(f.states, row.state) || !listed(f.agent, row.agent)) return false
  if (!underFolder(f.cwd, row.facts.cwd)) return false
  if (f.label && f.label.length > 0 && !f.label.includes(row.labels[me] ?? '')) return false
  if (f.quiet && !isQuiet({lastOutputAt: row.facts.lastOutputAt, state: row.state, workingSince: row.workingSince}, now)) return false
  return true
}
