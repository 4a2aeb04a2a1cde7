/**
 * Which transitions page the person, and what the notification says (seed 002). Pure:
 * the caller passes each transition with the session as it is now, and `now`.
 *
 * - A notification goes out on a transition into a demand of mine: a permission prompt, an
 *   error, a question, a decision card, a bare needs_input. A declared done is a soft one.
 * - Never for subagents, hidden or stashed rows, snoozed, dismissed or killed sessions, or
 *   sessions outside my inbox (owned by others, run by a teammate).
 * - A transition the session has already left (a replay after a restart) pages nobody.
 * - Deduped per session, kind and turn: the same ask in the same turn pages once.
 * - A burst groups into one notification, which names a reason only when every member shares it.
 * - The quiet band's sentence ("2 agents have gone quiet") only when no demand is pending.
 */
import {ASK_OF_REASON} from './attention.js'
import {exhaustive} from './exhaustive.js'
import type {Bucket, LogReason, Reason, TransitionEvent, WorkState} from './types.js'

export const NOTIFY_KINDS = ['approval', 'error', 'question', 'decision', 'needs_input', 'done', 'quiet', 'released'] as const
export type NotifyKind = (typeof NOTIFY_KINDS)[number]
/** The kinds that are demands (everything but the soft done and the quiet band). */
export const DEMAND_KINDS: readonly NotifyKind[] = ['approval', 'error', 'question', 'decision', 'needs_input']

/** How a person names an agent in a sentence: the caller's names (the registry's), else its id. */
export function agentName(agent: string, names: Readonly<Record<string, string>> = {}): string {
  return names[agent] ?? agent
}

/** The session as it is now, as far as paging cares. */
export interface NotifySubject {
  readonly id: string
  readonly agent: string
  readonly title: string | null
  readonly state: WorkState
  readonly reason: Reason
  readonly bucket: Bucket
  /** Turns started so far: the dedupe key's turn. */
  readonly turn: number
  /** What it asks now, when it asks (decision card, permission prompt, question, error). */
  readonly ask: {readonly kind: 'approval' | 'question' | 'error' | 'decision'; readonly text: string} | null
  /** What the agent declared it needs (`cast state blocked "…"`) while it reads needs_input/declared_blocked. */
  readonly blocked?: string | null
  /** A subagent child (it has a parent session). */
  readonly isChild: boolean
  /** In my inbox: not owned by others, not a teammate's run, inside the recency window. */
  readonly mine: boolean
  /** When the working session turns (or turned) quiet, else null. */
  readonly quietAt: number | null
  readonly workingSince: number | null
  /** The note of the park that released it (model/parks.ts), when one did. */
  readonly parkNote?: string | null
}

export interface NotifyTransition {
  readonly seq: number
  readonly ts: number
  readonly event: TransitionEvent
  readonly to: WorkState
  readonly reason: LogReason
  readonly bucket: Bucket
}

export interface NotifyOptions {
  /** A declared done: a soft notification (default), a normal one, or none. */
  readonly done: 'soft' | 'normal' | 'off'
  /** The quiet band's sentence. */
  readonly quiet: boolean
  /** How a person names each agent (id -> the name in a sentence); an agent missing here is named by its id. */
  readonly agentNames?: Readonly<Record<string, string>>
}

export const DEFAULT_NOTIFY_OPTIONS: NotifyOptions = {done: 'soft', quiet: true}

/** Buckets whose rows never page (true): set aside, folded, or not listed. Every bucket says. */
const SILENT_BUCKETS: Readonly<Record<Bucket, boolean>> = {
  dismissed: true,
  folded: true,
  hidden: true,
  killed: true,
  snoozed: true,
  stashed: true,
  done: false,
  dormant: false,
  idle: false,
  needs_input: false,
  new: false,
  pinned: false,
  questions: false,
  working: false,
}

/** A notification waiting to go out, one per session in a burst. */
export interface Candidate {
  readonly sessionId: string
  readonly agent: string
  readonly title: string | null
  readonly kind: NotifyKind
  /** The first line of what it asks (the permission, the question, the error), or null. */
  readonly askLine: string | null
  readonly key: string
  readonly seq: number
}

/** Is this session one that may page me at all, whatever happened to it? */
export function mayPage(s: NotifySubject): boolean {
  return s.mine && !s.isChild && SILENT_BUCKETS[s.bucket] !== true
}

/** The kind of notification this transition earns, or null when it pages nobody. */
export function notifyKindOf(t: NotifyTransition, s: NotifySubject, options: NotifyOptions = DEFAULT_NOTIFY_OPTIONS): NotifyKind | null {
  if (t.event === 'gone' || !mayPage(s)) return null
  // A park released (model/parks.ts): its own kind, unless the row has moved to another bucket since.
  if (t.reason === 'park_released') return s.bucket === t.bucket ? 'released' : null
  // The session left the state this transition went to (a replay, or it moved on in the window).
  if (s.state !== t.to || s.reason !== t.reason) return null
  if (s.ask?.kind === 'decision' && s.bucket === 'questions') return 'decision'
  if (t.to === 'needs_input') {
    if (s.ask && s.ask.kind !== 'decision') return s.ask.kind
    return ASK_OF_REASON[t.reason] ?? 'needs_input'
  }

  if (t.to === 'done' && t.reason === 'declared_done' && options.done !== 'off') return 'done'
  return null
}

/** Same session, same kind, same turn: pages once. */
export function dedupeKey(s: Pick<NotifySubject, 'id' | 'turn'>, kind: NotifyKind): string {
  return `${s.id}|${kind}|${s.turn}`
}

const firstLine = (text: string | null | undefined): string | null => {
  const line = (text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '')
  return line === undefined ? null : line.length > 160 ? line.slice(0, 159) + '…' : line
}

/**
 * The candidate a transition makes, or null (not a demand of mine, or already sent: `sent` holds
 * the dedupe keys already paged).
 */
export function candidateOf(
  t: NotifyTransition,
  s: NotifySubject,
  sent: ReadonlySet<string>,
  options: NotifyOptions = DEFAULT_NOTIFY_OPTIONS,
): Candidate | null {
  const kind = notifyKindOf(t, s, options)
  if (kind === null) return null
  const key = dedupeKey(s, kind)
  if (sent.has(key)) return null
  // A declared blocked says what the agent needs, as an ask does; a release, the park's note.
  const blocked = s.reason === 'declared_blocked' ? s.blocked : null
  const line = kind === 'done' ? null : kind === 'released' ? firstLine(s.parkNote) : firstLine(s.ask?.text ?? blocked)
  // A permission prompt names the tool (and, when known, what it runs): "Approve Bash?".
  const askLine = line !== null && kind === 'approval' ? `Approve ${line.replace(/\?$/, '')}?` : line
  return {agent: s.agent, askLine, key, kind, seq: t.seq, sessionId: s.id, title: s.title}
}

/** Seed 002's sentence form for one session. */
export function sentence(agent: string, kind: NotifyKind, names: Readonly<Record<string, string>> = {}): string {
  const who = agentName(agent, names)
  switch (kind) {
    case 'approval':
      return `${who} is waiting for approval`
    case 'question':
      return `${who} asked a question`
    case 'error':
      return `${who} is blocked by an error`
    case 'decision':
      return `${who} needs a decision`
    case 'done':
      return `${who} is done`
    case 'quiet':
      return `${who} has gone quiet`
    case 'released':
      return `${who} is back from its park`
    case 'needs_input':
      return `${who} is waiting for input`
    default:
      exhaustive(kind)
      return `${who} is waiting for input`
  }
}

/** The sentence for a group: it names a reason only when every member shares it. */
export function groupSentence(kinds: readonly NotifyKind[]): string {
  const n = kinds.length
  const shared = kinds.every((k) => k === kinds[0]) ? kinds[0] : null
  const agents = `${n} agents`
  switch (shared) {
    case 'approval':
      return `${agents} are waiting for approval`
    case 'question':
      return `${agents} asked a question`
    case 'error':
      return `${agents} are blocked by an error`
    case 'decision':
      return `${agents} need a decision`
    case 'done':
      return `${agents} are done`
    case 'released':
      return `${agents} are back from their parks`
    case 'needs_input':
    case 'quiet':
    case null:
    case undefined:
      return `${agents} need you`
    default:
      exhaustive(shared)
      return `${agents} need you`
  }
}

export interface Notification {
  /** The headline (the sentence). */
  readonly summary: string
  /** The session title and the ask line; for a group, one line per member. */
  readonly body: string
  /** low for a soft notification (a declared done with done: soft, the quiet band). */
  readonly urgency: 'low' | 'normal'
  /** The shared kind, or 'mixed' for a group of several kinds. */
  readonly kind: NotifyKind | 'mixed'
  readonly sessions: readonly string[]
  /** The dedupe keys it covers (to remember once it went out). */
  readonly keys: readonly string[]
}

const MAX_GROUP_LINES = 5

function describe(c: Candidate): string {
  const title = firstLine(c.title) ?? '(untitled)'
  return c.askLine ? `${title}: ${c.askLine}` : title
}

function build(cands: readonly Candidate[], urgency: 'low' | 'normal', names: Readonly<Record<string, string>> = {}): Notification {
  const kinds = cands.map((c) => c.kind)
  const shared = kinds.every((k) => k === kinds[0]) ? kinds[0]! : 'mixed'
  if (cands.length === 1) {
    const c = cands[0]!
    const body = [firstLine(c.title) ?? '(untitled)', ...(c.askLine ? [c.askLine] : [])].join('\n')
    return {body, keys: [c.key], kind: c.kind, sessions: [c.sessionId], summary: sentence(c.agent, c.kind, names), urgency}
  }

  const lines = cands.slice(0, MAX_GROUP_LINES).map((c) => `${agentName(c.agent, names)} · ${describe(c)}`)
  if (cands.length > MAX_GROUP_LINES) lines.push(`+${cands.length - MAX_GROUP_LINES} more`)
  return {
    body: lines.join('\n'),
    keys: cands.map((c) => c.key),
    kind: shared,
    sessions: cands.map((c) => c.sessionId),
    summary: groupSentence(kinds),
    urgency,
  }
}

/**
 * What a burst sends: one notification for its demands (grouped when several), and one for its
 * declared dones (soft unless configured otherwise). A session appears once, with its latest kind.
 */
export function planBurst(cands: readonly Candidate[], options: NotifyOptions = DEFAULT_NOTIFY_OPTIONS): Notification[] {
  const latest = new Map<string, Candidate>()
  for (const c of [...cands].sort((a, b) => a.seq - b.seq)) {
    latest.delete(c.sessionId)
    latest.set(c.sessionId, c)
  }

  const all = [...latest.values()]
  const demands = all.filter((c) => DEMAND_KINDS.includes(c.kind))
  const dones = all.filter((c) => c.kind === 'done')
  const released = all.filter((c) => c.kind === 'released')
  const out: Notification[] = []
  if (demands.length > 0) out.push(build(demands, 'normal', options.agentNames))
  if (released.length > 0) out.push(build(released, 'normal', options.agentNames))
  if (dones.length > 0) out.push(build(dones, options.done === 'normal' ? 'normal' : 'low', options.agentNames))
  return out
}

/** The quiet band's dedupe key: once per session and working stint. */
export function quietKey(s: Pick<NotifySubject, 'id' | 'workingSince' | 'turn'>): string {
  return `${s.id}|quiet|${s.workingSince ?? s.turn}`
}

/**
 * The quiet band's sentence, when a session of mine newly went quiet and nothing louder asks:
 * "2 agents have gone quiet" (counting every quiet session of mine), or null.
 */
export function quietNotice(
  subjects: readonly NotifySubject[],
  sent: ReadonlySet<string>,
  now: number,
  options: NotifyOptions = DEFAULT_NOTIFY_OPTIONS,
): Notification | null {
  if (!options.quiet) return null
  const mine = subjects.filter((s) => mayPage(s))
  if (mine.some((s) => s.state === 'needs_input' || s.bucket === 'questions')) return null
  const quiet = mine.filter((s) => s.state === 'working' && s.quietAt !== null && s.quietAt <= now)
  const fresh = quiet.filter((s) => !sent.has(quietKey(s)))
  if (fresh.length === 0) return null
  const n = quiet.length
  const lines =
    n === 1
      ? [firstLine(quiet[0]!.title) ?? '(untitled)']
      : quiet.slice(0, MAX_GROUP_LINES).map((s) => `${agentName(s.agent, options.agentNames)} · ${firstLine(s.title) ?? '(untitled)'}`)
  if (n > MAX_GROUP_LINES) lines.push(`+${n - MAX_GROUP_LINES} more`)
  return {
    body: lines.join('\n'),
    keys: fresh.map((s) => quietKey(s)),
    kind: 'quiet',
    sessions: quiet.map((s) => s.id),
    summary: n === 1 ? `${agentName(quiet[0]!.agent, options.agentNames)} has gone quiet` : `${n} agents have gone quiet`,
    urgency: 'low',
  }
}

/** The next time a session of mine turns quiet (for the one timer the notifier sets), or null. */
export function nextQuietAt(subjects: readonly NotifySubject[], now: number): number | null {
  let next: number | null = null
  for (const s of subjects) {
    if (!mayPage(s) || s.state !== 'working' || s.quietAt === null || s.quietAt <= now) continue
    if (next === null || s.quietAt < next) next = s.quietAt
  }

  return next
}

/**
 * The status line (`cast status`): "3 need you · 1 quiet", or "nothing needs you". `format`
 * fills {need}, {quiet}, {working}, {done}, {questions}, {total}.
 */
/** The fields `cast status --format` fills. */
export const STATUS_FIELDS = ['need', 'quiet', 'questions', 'working', 'done', 'total'] as const

/** The {names} in a --format template that are not fields (a typo: a usage error, not a literal). */
export function unknownStatusFields(format: string): string[] {
  const known: readonly string[] = STATUS_FIELDS
  return [...new Set([...format.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((k) => !known.includes(k)))]
}

export function statusLine(
  counts: {
    readonly needs_input: number
    readonly quiet: number
    readonly working: number
    readonly done: number
    readonly questions: number
  },
  format?: string,
): string {
  const need = counts.needs_input
  if (format !== undefined) {
    const values: Record<string, number> = {
      done: counts.done,
      need,
      questions: counts.questions,
      quiet: counts.quiet,
      total: need + counts.quiet,
      working: counts.working,
    }
    return format.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m))
  }

  const parts: string[] = []
  if (need > 0) parts.push(`${need} need${need === 1 ? 's' : ''} you`)
  if (counts.quiet > 0) parts.push(`${counts.quiet} quiet`)
  return parts.length === 0 ? 'nothing needs you' : parts.join(' · ')
}
