/**
 * What a session holds (seed 001, "What the app shows"): token usage, models, changed files,
 * running tools, background work, and the phase. Pure: the adapters read the facts from the
 * agent's own files (src/adapters/<agent>/usage.ts), the store sums the subagent tree, and this
 * module decides what a usage line is worth, how a tree adds up, and which phase a session is in.
 */
import type {SessionFacts, SessionHolds, TokenUsage, WorkState} from './types.js'

export type {RunningTool, SessionHolds, TokenUsage} from './types.js'

export const ZERO_USAGE: TokenUsage = {cacheRead: 0, cacheWrite: 0, input: 0, output: 0}

/** The most tokens one usage line may claim; more is read as nonsense (unknown). */
export const MAX_LINE_TOKENS = 1e12
/** How many changed paths a session keeps; the rest are counted in `changedMore`. */
export const MAX_CHANGED_PATHS = 100
/** How many models a session keeps (first-use order). */
export const MAX_MODELS = 8
/** How many open tool calls a session keeps. */
export const MAX_RUNNING = 16

export const EMPTY_HOLDS: SessionHolds = {
  background: [],
  changed: [],
  changedMore: 0,
  compacting: false,
  models: [],
  partial: false,
  running: [],
  unknownUsage: 0,
  usage: null,
}

/** A token count as an agent wrote it: a non-negative integer no larger than MAX_LINE_TOKENS, else null. */
export function tokenCount(v: unknown): number | null {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_LINE_TOKENS) return null
  return v
}

/**
 * One line's usage from its four raw fields, or null (unknown) when a required field is missing
 * or any present field is not a sane count. `optional` fields may be absent (read as 0).
 */
export function lineUsage(
  raw: {readonly input: unknown; readonly output: unknown; readonly cacheRead?: unknown; readonly cacheWrite?: unknown},
  optional: readonly ('cacheRead' | 'cacheWrite')[] = ['cacheRead', 'cacheWrite'],
): TokenUsage | null {
  const input = tokenCount(raw.input)
  const output = tokenCount(raw.output)
  if (input === null || output === null) return null
  const extra = (k: 'cacheRead' | 'cacheWrite'): number | null => (raw[k] === undefined && optional.includes(k) ? 0 : tokenCount(raw[k]))
  const cacheRead = extra('cacheRead')
  const cacheWrite = extra('cacheWrite')
  if (cacheRead === null || cacheWrite === null) return null
  if (input + output + cacheRead + cacheWrite > MAX_LINE_TOKENS) return null
  return {cacheRead, cacheWrite, input, output}
}

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    input: a.input + b.input,
    output: a.output + b.output,
  }
}

export function subUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    cacheRead: a.cacheRead - b.cacheRead,
    cacheWrite: a.cacheWrite - b.cacheWrite,
    input: a.input - b.input,
    output: a.output - b.output,
  }
}

export const usageTotal = (u: TokenUsage): number => u.input + u.output + u.cacheRead + u.cacheWrite

/** A holds value read back from stored JSON, or null when it is not one. */
export function holdsOf(facts: Partial<SessionFacts> | null | undefined): SessionHolds | null {
  const h = (facts as {holds?: unknown} | null | undefined)?.holds
  if (h === null || typeof h !== 'object') return null
  const o = h as Partial<SessionHolds>
  if (!Array.isArray(o.changed) || !Array.isArray(o.models) || !Array.isArray(o.running) || !Array.isArray(o.background)) return null
  return {...EMPTY_HOLDS, ...o}
}

/** One node of a subagent tree as the store loads it. */
export interface HoldsNode {
  readonly id: string
  readonly parentId: string | null
  readonly state: WorkState | null
  readonly holds: SessionHolds | null
}

/** A session's holds summed over itself and every descendant. */
export interface TreeHolds {
  /** Summed over the tree's nodes that record usage; null when none does. */
  readonly usage: TokenUsage | null
  readonly unknownUsage: number
  readonly models: readonly string[]
  /** Per path over the tree, first-write order. */
  readonly changed: readonly {readonly path: string; readonly count: number}[]
  readonly changedMore: number
  /** Sessions in the tree (the root included). */
  readonly sessions: number
  /** Sessions in the tree whose own files record no usage. */
  readonly withoutUsage: number
  readonly partial: boolean
}

/** Sum the tree under `rootId` (cycles in bad parent links are walked once). */
export function sumTree(rootId: string, nodes: readonly HoldsNode[]): TreeHolds {
  const only = nodes.length === 1 && nodes[0]!.id === rootId ? ownTree(nodes[0]!.holds) : null
  if (only !== null) return only
  const kids = new Map<string, HoldsNode[]>()
  const byId = new Map<string, HoldsNode>()
  for (const n of nodes) {
    byId.set(n.id, n)
    if (n.parentId !== null) kids.set(n.parentId, [...(kids.get(n.parentId) ?? []), n])
  }

  let usage: TokenUsage | null = null
  let unknownUsage = 0
  let changedMore = 0
  let sessions = 0
  let withoutUsage = 0
  let partial = false
  const models: string[] = []
  const changed = new Map<string, number>()
  const seen = new Set<string>()
  const stack = byId.has(rootId) ? [byId.get(rootId)!] : []
  while (stack.length > 0) {
    const n = stack.pop()!
    if (seen.has(n.id)) continue
    seen.add(n.id)
    sessions++
    stack.push(...(kids.get(n.id) ?? []))
    const h = n.holds
    if (h === null || h.usage === null) withoutUsage++
    if (h === null) continue
    if (h.usage !== null) usage = addUsage(usage ?? ZERO_USAGE, h.usage)
    unknownUsage += h.unknownUsage
    changedMore += h.changedMore
    partial ||= h.partial
    for (const m of h.models) if (!models.includes(m)) models.push(m)
    for (const c of h.changed) changed.set(c.path, (changed.get(c.path) ?? 0) + c.count)
  }

  return {
    changed: [...changed].map(([path, count]) => ({count, path})),
    changedMore,
    models,
    partial,
    sessions,
    unknownUsage,
    usage,
    withoutUsage,
  }
}

/**
 * A tree of one session (most rows: no subagents), summed without the walk's maps: the same
 * figures as sumTree's, or null when its lists repeat a path or a model (sumTree merges them).
 */
function ownTree(h: SessionHolds | null): TreeHolds | null {
  if (h === null)
    return {changed: [], changedMore: 0, models: [], partial: false, sessions: 1, unknownUsage: 0, usage: null, withoutUsage: 1}
  if (new Set(h.models).size !== h.models.length || new Set(h.changed.map((c) => c.path)).size !== h.changed.length) return null
  return {
    changed: h.changed.map((c) => ({count: c.count, path: c.path})),
    changedMore: h.changedMore,
    models: [...h.models],
    partial: h.partial,
    sessions: 1,
    unknownUsage: h.unknownUsage,
    usage: h.usage === null ? null : addUsage(ZERO_USAGE, h.usage),
    withoutUsage: h.usage === null ? 1 : 0,
  }
}

export const PHASES = ['starting', 'thinking', 'running_tool', 'compacting', 'waiting', 'ended'] as const
/**
 * Seed 001's phase: starting, thinking/producing, running a tool, compacting, waiting (on the
 * person: an ask, or the turn is over), ended (the process is gone or the session was killed).
 */
export type Phase = (typeof PHASES)[number]

/** The phase of a session from its facts, its state and holds. */
export function phaseOf(
  facts: Pick<SessionFacts, 'process' | 'settled' | 'messages' | 'approval' | 'question' | 'error'>,
  state: WorkState | null,
  holds: SessionHolds | null,
): Phase {
  const status = facts.process?.status ?? null
  if (facts.process !== null && !facts.process.alive && state !== 'working') return 'ended'
  if (status === 'compacting' || holds?.compacting === true) return 'compacting'
  if (facts.approval !== null || facts.question !== null || facts.error !== null) return 'waiting'
  if (state !== null && state !== 'working') return 'waiting'
  if (status === 'starting' || status === 'resuming' || (facts.messages === 0 && !facts.settled)) return 'starting'
  if ((holds?.running.length ?? 0) > 0) return 'running_tool'
  if (facts.settled && state !== 'working') return 'waiting'
  return 'thinking'
}
