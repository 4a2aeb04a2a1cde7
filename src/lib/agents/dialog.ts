/**
 * What the verbs that act on an agent (`cast approve`, `deny`, `send`, `kill`) need to act
 * safely:
 *
 * - **Which process is the session's.** A claim (a registry, lock or open handle's
 *   `processClaim`, or the pid the screen sweep found in the session's pane) counts only when it
 *   is verified: pid > 1, alive, and its start time equals the claim's. A claim without a start
 *   time is not verified. A pid that other sessions claim too (an agent's one daemon serving
 *   every TUI, its module's `sharedDaemon`), or a process known to be such a shared daemon, is never
 *   evidence for one session.
 * - **Which pane is the session's.** The pane (on any tmux server the user owns) whose process
 *   tree contains one of those verified pids. Never found by walking up from a process (a
 *   daemon's parent is some other session's pane). None, or two → no pane.
 * - **What dialog is open.** From the store (registry, hooks, screen overlay) and from the
 *   screen captured at that moment, read with the agent's screen patterns.
 * - **How to answer it.** The keys the agent's screen patterns declare (`DialogKeys`).
 */
import {registry} from '../../adapters/index.js'
import {screenMatcher, type DialogKeys, type ScreenMatch} from '../../adapters/screen.js'
import {processArgv} from '../../core/ingest/process-table.js'
import {readScreenOverrides, screenObservationOf, screenSource} from '../../core/ingest/screen.js'
import type {Agent} from '../../core/model/types.js'
import {shortId} from '../../core/model/ids.js'
import {screenContributions} from '../../core/store/screen.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {CastError} from '../base/cast-error.js'
import {configPath} from '../home/config.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {listAllPanes, type Pane} from './tmux.js'
import {childrenMap, treeOf, verifyIdentity} from './terminate.js'

// ---------------------------------------------------------------------------------------------
// Process claims

export interface Claim {
  readonly pid: number
  readonly startedAt: number | null
  /** Where the claim comes from: a file path, or `tmux %3 (main:1.0)` for the screen sweep. */
  readonly source: string
}

export interface CheckedClaims {
  /** Verified and this session's alone, one per pid. */
  readonly verified: readonly Claim[]
  /** Claims that do not count, each with why. */
  readonly refused: readonly {claim: Claim; why: string}[]
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The process claims in one stored contribution: its processClaim, and a screen reading's pane process. */
function claimsIn(data: string, path: string): Claim[] {
  let c: unknown
  try {
    c = JSON.parse(data)
  } catch {
    return []
  }

  if (!isObject(c)) return []
  const out: Claim[] = []
  const pc = c['processClaim']
  if (isObject(pc) && typeof pc['pid'] === 'number') {
    const src = isObject(pc['source']) && typeof pc['source']['ref'] === 'string' ? pc['source']['ref'] : path
    out.push({pid: pc['pid'], source: src, startedAt: typeof pc['startedAt'] === 'number' ? pc['startedAt'] : null})
  }

  const screen = screenObservationOf(c)
  if (screen !== null) out.push({pid: screen.pid, source: screenSource(screen).ref, startedAt: screen.startedAt ?? null})

  return out
}

/** Processes known to serve several sessions at once, whatever the store says. */
function isSharedDaemon(agent: string, pid: number): boolean {
  const daemon = registry().byId(agent)?.sharedDaemon
  return daemon ? daemon(processArgv(pid)) : false
}

/**
 * Every claim on the session's process, checked: verified ones (alive, same start time, pid > 1,
 * not a shared daemon, not claimed by another session too) and the rest with the reason.
 */
export function checkClaims(store: Store, row: Pick<SessionRow, 'agent' | 'nativeId'>): CheckedClaims {
  const mine: Claim[] = []
  for (const c of store.contributionsFor(row.agent, row.nativeId)) mine.push(...claimsIn(c.data, c.path))
  const checked = mine.map((claim) => ({claim, why: verifyIdentity(claim.pid, claim.startedAt)}))
  const candidates: Claim[] = []
  for (const c of checked) if (c.why === null && !candidates.some((x) => x.pid === c.claim.pid)) candidates.push(c.claim)
  // A stale claim on a pid another claim verifies (a registry rewritten since) is not a refusal.
  const refused = checked.filter((c): c is {claim: Claim; why: string} => c.why !== null && !candidates.some((x) => x.pid === c.claim.pid))
  if (candidates.length === 0) return {refused, verified: []}
  // Other sessions' verified claims on the same pids.
  const others = otherClaims(store, row, new Set(candidates.map((c) => c.pid)))
  const verified: Claim[] = []
  for (const claim of candidates) {
    const n = others.get(claim.pid)?.size ?? 0
    if (n > 0) refused.push({claim, why: `pid ${claim.pid} is claimed by ${n} other session${n === 1 ? '' : 's'} too (a shared process)`})
    else if (isSharedDaemon(row.agent, claim.pid))
      refused.push({claim, why: `pid ${claim.pid} is ${row.agent}'s shared daemon, not this session's own process`})
    else verified.push(claim)
  }

  return {refused, verified}
}

/** Pid → the other sessions whose verified claims name it (only pids in `wanted`, or all when null). */
function otherClaims(
  store: Store,
  row: Pick<SessionRow, 'agent' | 'nativeId'>,
  wanted: ReadonlySet<number> | null,
): Map<number, Set<string>> {
  const others = new Map<number, Set<string>>()
  const self = `${row.agent}\0${row.nativeId}`
  const note = (agent: string, nativeId: string, data: string, path: string): void => {
    const key = `${agent}\0${nativeId}`
    if (key === self) return
    for (const claim of claimsIn(data, path)) {
      if ((wanted !== null && !wanted.has(claim.pid)) || verifyIdentity(claim.pid, claim.startedAt) !== null) continue
      others.set(claim.pid, (others.get(claim.pid) ?? new Set()).add(key))
    }
  }

  for (const c of store.sessionsWithProcessClaims()) note(c.agent, c.nativeId, c.data, '')
  for (const c of screenContributions(store)) note(c.agent, c.nativeId, c.data, c.path)
  return others
}

// ---------------------------------------------------------------------------------------------
// The pane

export type PaneFinding =
  {readonly pane: Pane; readonly pid: number; readonly why: null} | {readonly pane: null; readonly pid: null; readonly why: string}

/**
 * The one pane whose process tree holds one of the session's verified pids, on any tmux server
 * the user owns. A pane whose tree also holds another session's verified process on the path
 * down to ours belongs to that one (our pid runs under it). None or several → why.
 */
/** A finding's reason without its subject ("session abc1234 has no …" → "has no …"), for a sentence that names the session already. */
export function reasonOf(found: {why: string}, id: string): string {
  return found.why.replace(`session ${id} `, '')
}

export async function findPane(store: Store, row: SessionRow, env: Env, claims = checkClaims(store, row)): Promise<PaneFinding> {
  const id = shortId(row.id)
  if (claims.verified.length === 0) {
    const why = claims.refused[0]?.why
    return {pane: null, pid: null, why: `session ${id} has no verified live process${why ? ` (${why})` : ''}`}
  }

  const panes = (await listAllPanes(env)).filter((p) => !p.dead)
  if (panes.length === 0)
    return {
      pane: null,
      pid: null,
      why: `session ${id} (pid ${claims.verified.map((c) => c.pid).join(', ')}) is not in a tmux pane: no tmux server answers`,
    }
  const children = childrenMap()
  if (children === null) return {pane: null, pid: null, why: 'no /proc: the process tree cannot be read'}
  const pids = new Set(claims.verified.map((c) => c.pid))
  const parent = new Map<number, number>()
  for (const [pp, list] of children) for (const c of list) parent.set(c, pp)
  let others: Map<number, Set<string>> | null = null
  const hits: {pane: Pane; pid: number}[] = []
  for (const pane of panes) {
    const tree = treeOf(pane.pid, children)
    const hit = tree.find((p) => pids.has(p))
    if (hit === undefined) continue
    // Our process runs under another session's (a helper it started): the pane is that one's.
    others ??= otherClaims(store, row, null)
    let under = false
    for (let cur = parent.get(hit), depth = 0; cur !== undefined && depth < 64; cur = parent.get(cur), depth++) {
      if (others.has(cur)) under = true
      if (cur === pane.pid) break
    }

    if (!under) hits.push({pane, pid: hit})
  }

  if (hits.length === 1) return {...hits[0]!, why: null}
  const list = claims.verified.map((c) => c.pid).join(', ')
  if (hits.length === 0) return {pane: null, pid: null, why: `session ${id} runs in process ${list}, which is not in a tmux pane`}
  return {
    pane: null,
    pid: null,
    why: `session ${id} (pid ${list}) is in ${hits.length} tmux panes (${hits.map((h) => paneName(h.pane)).join(', ')}): cast will not guess`,
  }
}

export function paneName(p: Pane): string {
  return `${p.id} (${p.address})`
}

// ---------------------------------------------------------------------------------------------
// Dialogs

export interface OpenDialog {
  readonly kind: 'approval' | 'question'
  readonly text: string
  /** `registry …`, `hook …`, `screen tmux %3 (…)`. */
  readonly source: string
}

let matcherCache: {key: string; m: ReturnType<typeof screenMatcher>} | null = null

/**
 * The screen matcher with the config's screen_patterns: rebuilt when the config file or its
 * patterns change (one process may run several commands: the tests' in-process runner).
 */
function matcher(env: Env): ReturnType<typeof screenMatcher> {
  const file = configPath(env)
  const overrides = readScreenOverrides(file)
  const key = `${file}\0${JSON.stringify(overrides)}`
  if (matcherCache?.key !== key) matcherCache = {key, m: screenMatcher(overrides)}
  return matcherCache.m
}

/** What the agent's screen patterns read on this screen. */
export function readScreen(env: Env, agent: Agent, screen: string): ScreenMatch | null {
  return matcher(env).match(agent, screen)
}

/** A dialog the store knows is open (registry, hooks, the screen overlay). */
export function storedDialog(row: SessionRow): OpenDialog | null {
  const f = row.facts
  const src = (k: string): string => {
    const s = f.sources[k]
    return s ? `${s.kind} ${s.ref}` : 'the store'
  }

  if (f.approval !== null) return {kind: 'approval', source: src('approval'), text: f.approval.text}
  if (f.question !== null) return {kind: 'question', source: src('question'), text: f.question.text}
  return null
}

/** A dialog on the screen right now. */
export function screenDialog(env: Env, agent: Agent, pane: Pane, screen: string | null): OpenDialog | null {
  if (screen === null) return null
  const r = readScreen(env, agent, screen)
  if (r === null || (r.kind !== 'approval' && r.kind !== 'question')) return null
  return {kind: r.kind, source: `screen tmux ${paneName(pane)}`, text: r.text}
}

/** The refusal `cast send` gives when a dialog is open: which dialog, and the verb to use. */
export function dialogRefusal(row: SessionRow, d: OpenDialog): CastError {
  const id = shortId(row.id)
  if (d.kind === 'approval') {
    return new CastError(
      `Session ${id} has a permission prompt open (${d.text || 'approval'}; from ${d.source}): a message typed now would answer it. Nothing sent.`,
      EXIT.REFUSED,
      [`Answer it: cast approve ${id}, or cast deny ${id} [--note TEXT]; then send.`],
    )
  }

  return new CastError(
    `Session ${id} has a question dialog open (${d.text || 'question'}; from ${d.source}): a message typed now would pick an answer. Nothing sent.`,
    EXIT.REFUSED,
    ['Answer the question in its terminal (the dialog is a menu, not a prompt), then send.'],
  )
}

/** The keys that answer this agent's permission dialog, from its screen patterns; null when none are declared. */
export function dialogKeys(agent: Agent): DialogKeys | null {
  return registry().byId(agent)?.screen.keys ?? null
}
