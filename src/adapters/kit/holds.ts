/**
 * Reading what a session holds (src/core/model/holds.ts) beside an adapter's own parsing: a
 * holds reader runs over the same parsed lines as the adapter's parser, keeps its small state in
 * the parser's state under HOLDS_KEY, and hands its holds to the file's own session's
 * contribution (`facts.holds`); compose keeps them. The adapter's parser and compose are not
 * changed, only wrapped (each adapter's index.ts).
 */
import type {CheckedContribution, Contribution, FileMatch, JsonlParser, JsonRecord, LineParser} from '../../core/ingest/adapter.js'
import {addUsage, EMPTY_HOLDS, MAX_CHANGED_PATHS, MAX_MODELS, MAX_RUNNING, subUsage, ZERO_USAGE} from '../../core/model/holds.js'
import type {SessionFacts, SessionHolds, TokenUsage} from '../../core/model/types.js'

/** Where the holds state sits in the parser's state (JSON: the engine stores it with the offset). */
export const HOLDS_KEY = 'holds$'

/** The holds counters every reader shares. */
export interface HoldsState {
  usage: TokenUsage | null
  unknownUsage: number
  models: string[]
  changed: [string, number][]
  changedMore: number
  /** Open calls by call id: [name, since]. */
  open: Record<string, [string, number | null]>
  compacting: boolean
  partial: boolean
}

export function initHolds(): HoldsState {
  return {changed: [], changedMore: 0, compacting: false, models: [], open: {}, partial: false, unknownUsage: 0, usage: null}
}

/** One agent's holds reader: a line in, its state updated. */
export interface HoldsReader<S extends HoldsState = HoldsState> {
  init(): S
  line(state: S, rec: JsonRecord, offset: number): void
  /** Background work: from the reader's state, or the adapter's own contribution when its parser records it. */
  background?(state: S, contribution: Contribution): readonly string[]
}

export function addModel(s: HoldsState, model: string | null): void {
  if (model === null || model === '' || model.startsWith('<') || s.models.includes(model)) return
  if (s.models.length < MAX_MODELS) s.models.push(model.slice(0, 120))
}

/** Count one write to `path`. */
export function addChanged(s: HoldsState, path: string | null): void {
  if (path === null || path === '') return
  const hit = s.changed.find((c) => c[0] === path)
  if (hit) hit[1] += 1
  else if (s.changed.length < MAX_CHANGED_PATHS) s.changed.push([path.slice(0, 400), 1])
  else s.changedMore += 1
}

/** A holds state that counts a message's usage once, however many lines repeat the message. */
export interface MessageUsageState extends HoldsState {
  /** Recent message ids with the usage each added (null: read as unknown), oldest first. */
  recent: [string, TokenUsage | null][]
}

/** How many recent message ids are remembered to de-duplicate their lines. */
export const RECENT_MESSAGE_IDS = 64

/**
 * Count one line's usage `u` of message `id`: a message seen again (an agent that writes one line
 * per content block, each with the message's usage) replaces what that id added before.
 */
export function countMessageUsage(s: MessageUsageState, id: string | null, u: TokenUsage | null): void {
  const hit = id === null ? undefined : s.recent.find((r) => r[0] === id)
  if (hit) {
    if (hit[1] !== null) s.usage = subUsage(s.usage ?? ZERO_USAGE, hit[1])
    else s.unknownUsage -= 1
    hit[1] = u
  } else if (id !== null) {
    s.recent.push([id, u])
    if (s.recent.length > RECENT_MESSAGE_IDS) s.recent.shift()
  }
  if (u === null) s.unknownUsage += 1
  else s.usage = addUsage(s.usage ?? ZERO_USAGE, u)
}

export function openCall(s: HoldsState, id: string, name: string, since: number | null): void {
  if (Object.keys(s.open).length >= MAX_RUNNING) return
  s.open[id] = [name.slice(0, 80), since]
}

export function closeCall(s: HoldsState, id: string): void {
  delete s.open[id]
}

export function holdsFrom(s: HoldsState, background: readonly string[] = []): SessionHolds {
  return {
    ...EMPTY_HOLDS,
    background,
    changed: s.changed.map(([path, count]) => ({count, path})),
    changedMore: s.changedMore,
    compacting: s.compacting,
    models: [...s.models],
    partial: s.partial,
    running: Object.values(s.open).map(([name, since]) => ({name, since})),
    unknownUsage: s.unknownUsage,
    usage: s.usage,
  }
}

/** The parser with the holds reader run over the same lines. A text parser is returned as is. */
export function withHolds<S extends HoldsState>(parser: LineParser<unknown>, reader: HoldsReader<S>): LineParser<unknown> {
  if (parser.lines === 'text') return parser
  const base: JsonlParser<unknown> = parser
  const holdsState = (state: unknown): S => {
    const o = state as Record<string, unknown>
    // A state stored before holds were counted resumes mid-file: what came before is not seen.
    if (o[HOLDS_KEY] === undefined) o[HOLDS_KEY] = {...reader.init(), partial: true}
    return o[HOLDS_KEY] as S
  }
  return {
    contributions(state: unknown, path: string, match: FileMatch & {kind: 'jsonl'}): Contribution[] {
      const list = base.contributions(state, path, match)
      // A state stored before holds were counted (re-checked without reading a line): unknown.
      if ((state as Record<string, unknown>)[HOLDS_KEY] === undefined) return list
      const h = holdsState(state)
      // The file's own session: the one its path names, else the first (a parser that takes the id from a line).
      const own = list.find((c) => c.nativeId === match.nativeId) ?? list[0]
      return list.map((c) => (c === own ? {...c, facts: {...c.facts, holds: holdsFrom(h, reader.background?.(h, c) ?? [])}} : c))
    },
    init(path: string, match: FileMatch & {kind: 'jsonl'}): unknown {
      const state = base.init(path, match) as Record<string, unknown>
      state[HOLDS_KEY] = reader.init()
      return state
    },
    // A state stored before holds were counted is not resumed: the file is read again from its start.
    resumes: (stored: string): boolean => stored.includes(`"${HOLDS_KEY}":`) && base.resumes?.(stored) !== false,
    line(state: unknown, rec: JsonRecord, offset: number): boolean {
      const ok = base.line(state, rec, offset)
      reader.line(holdsState(state), rec, offset)
      return ok
    },
  }
}

type Compose = (nativeId: string, contributions: readonly CheckedContribution[]) => SessionFacts

/** Compose, then keep the holds a contribution carries (the file's own session's). */
export function composeWithHolds(compose: Compose): Compose {
  return (nativeId, contributions) => {
    const facts = compose(nativeId, contributions)
    const holds = contributions.find((c) => c.facts.holds !== undefined)?.facts.holds
    return holds === undefined ? facts : {...facts, holds}
  }
}

/** A non-empty string, else null. */
export const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Epoch ms of an ISO timestamp, else null. */
export function timeOf(v: unknown): number | null {
  if (typeof v !== 'string') return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : null
}
