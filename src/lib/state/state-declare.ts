/**
 * The declaration `cast state` makes once its session is found, shared by the fast path in the
 * caller's own process (src/lib/state/state-local.ts) and the daemon answering over its socket
 * (src/lib/state/state-serve.ts), so both write the same rows and print the same bytes. The session
 * is found as src/lib/agents/self-session.ts findOwnSession finds it, by keyed lookups; the caller
 * is described, never assumed to be this process: its variables, and its parent's pid, where the
 * process tree and the ancestry walk start (the daemon reads that pid from /proc itself).
 */
import {SESSION_VARIABLES} from '../../adapters/session-variables.js'
import {isSameProcessAlive} from '../../core/ingest/process-table.js'
import {resolveTyped, shortId} from '../../core/model/ids.js'
import type {SessionFacts} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import {ancestors, ancestryProcess} from '../agents/ancestry.js'
import type {StateArgs} from './state-args.js'

export interface Found {
  id: string
  via: string
  agent: string
  nativeId: string
}

export interface Caller {
  /** CAST_SESSION and the agents' own variables, as the caller's environment holds them. */
  readonly vars: Readonly<Record<string, string | undefined>>
  /** The caller's parent: the process tree and the ancestry walk start there. */
  readonly ppid: number
  /** This machine and account as the caller names it (src/lib/home/env.ts deviceName). */
  readonly device: string
  /** A request's id: a declaration made under it is made once, however often it comes. */
  readonly requestId?: string
}

/** The variable names the daemon takes from a client's request: those findOwn reads. */
export const CALLER_VARIABLES: readonly string[] = ['CAST_SESSION', ...SESSION_VARIABLES.map((v) => v.name)]

/** The ids of the last requests declared (Store meta), so a retry after a lost reply declares nothing again. */
const REQUESTS_KEY = 'state.requests'
const REQUESTS_KEPT = 64

/**
 * The session named by --session, CAST_SESSION, an agent's variable or the process tree; null
 * when that is not exactly one session (the command then says why, or waits for a claim).
 */
export function findOwn(store: Store, flag: string | undefined, caller: Caller, live: boolean): Found | null {
  const vars = caller.vars
  const one = (typed: string, via: string): Found | null => {
    const candidates = store.sessionIdCandidates(typed.trim())
    const r = resolveTyped(typed, candidates)
    if (r.kind !== 'one') return null
    const c = candidates.find((k) => k.id === r.id)!
    return {agent: c.agent, id: r.id, nativeId: c.nativeId, via}
  }

  if (flag) return one(flag, vars.CAST_SESSION === flag ? 'CAST_SESSION' : '--session')
  if (vars.CAST_SESSION) return one(vars.CAST_SESSION, 'CAST_SESSION')
  let named = false
  for (const v of SESSION_VARIABLES) {
    const value = vars[v.name]
    if (!value) continue
    named = true
    const id = store.sessionIdByNative(v.agent, value)
    if (id !== null) return {agent: v.agent, id, nativeId: value, via: v.name}
  }

  // The command syncs before it looks: a session an agent names but the store does not hold yet
  // (a new one, after /clear in the same process) is found by its variable then, never by the
  // process tree's older claim. The stored claims are current only while a live ingester keeps them.
  return named || !live ? null : fromProcessTree(store, caller.ppid)
}

/**
 * The nearest ancestor claimed by exactly one session (its claim's process alive and started when
 * the claim says), as self-session.ts fromProcessTree, over the claims on the ancestors' pids only.
 * Null when none is, or when the nearest claimed one is claimed by several (the command says so).
 */
function fromProcessTree(store: Store, startPid: number): Found | null {
  const pids = ancestors(startPid)
  if (pids.length === 0) return null
  const byPid = new Map<number, Map<string, Found>>()
  const alive = new Map<string, boolean>()
  for (const c of store.claimsOnPids(pids)) {
    const key = `${c.pid}:${c.startedAt ?? ''}`
    let ok = alive.get(key)
    // A start time that is not a number is no proof (isSameProcessAlive refuses it, as for the command's JSON.parse).
    if (ok === undefined) alive.set(key, (ok = isSameProcessAlive(c.pid, c.startedAt as number | null)))
    if (!ok) continue
    const ids = byPid.get(c.pid) ?? new Map<string, Found>()
    byPid.set(c.pid, ids.set(c.id, {agent: c.agent, id: c.id, nativeId: c.nativeId, via: `process tree (pid ${c.pid})`}))
  }

  for (const pid of pids) {
    const ids = byPid.get(pid)
    if (ids === undefined) continue
    return ids.size === 1 ? [...ids.values()][0]! : null
  }

  return null
}

/** Record the declaration (the command's transaction, src/commands/state/index.ts); a request id already declared writes nothing. */
export function declare(store: Store, found: Found, args: StateArgs, caller: Caller, now: number): void {
  store.tx(() => {
    if (caller.requestId !== undefined) {
      const seen = JSON.parse(store.getMeta(REQUESTS_KEY) ?? '[]') as string[]
      if (seen.includes(caller.requestId)) return
      store.setMeta(REQUESTS_KEY, JSON.stringify([...seen.slice(1 - REQUESTS_KEPT), caller.requestId]))
    }

    let row = store.loadSessions([found.id])[0]!
    // The caller runs inside the agent: its ancestry proves the agent alive where this process
    // cannot see it (as the command does, src/commands/state/index.ts).
    const proc = ancestryProcess(row.agent, found, row.facts.process, now, caller.ppid)
    if (proc !== null) {
      const facts: SessionFacts = {...row.facts, process: proc, sources: {...row.facts.sources, process: proc.source}}
      // The session exists: upsertFacts updates its facts and never reads the runner (set on a first sight only).
      store.upsertFacts(row.agent, row.nativeId, facts, facts.parentNativeId, {device: caller.device, now, runner: ''})
      row = store.loadSessions([found.id])[0]!
    }

    store.patchRecords(found.id, {
      declaration: {at: now, messages: row.facts.messages, status: args.status, text: args.text, turnIndex: row.facts.turnIndex},
    })
    store.reconcile(now, [found.id])
  })
}

/** What the command prints for the declaration: its line, or with --json its JSON (`me` names the reader). */
export async function declaredText(store: Store, found: Found, args: StateArgs, now: number, me: () => string): Promise<string> {
  const row = store.loadSessions([found.id])[0]!
  if (args.json) {
    const {sessionJson} = await import('../views/views.js')
    return JSON.stringify({session: sessionJson(row, me(), now), via: found.via}, null, 2) + '\n'
  }

  const head = args.text ? ` — ${args.text.split('\n')[0]}` : ''
  return `${shortId(row.id)}: ${args.status}${head}  (now ${row.state}:${row.reason}; found via ${found.via})\n`
}
