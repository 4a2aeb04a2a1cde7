/**
 * Composing a session's facts from its stored contributions (the adapter's compose, then the
 * process scan's and the screen's overlays), upserting them and reconciling the changed rows; and
 * re-checking the stored process claims against the process table.
 */
import fs from 'node:fs'

import type {Agent, SessionFacts} from '../model/types.js'
import type {Store} from '../store/store.js'
import type {Adapter, CheckedContribution, Contribution} from './adapter.js'
import {composeFacts} from './compose.js'
import {applyScan, isScanContribution} from './process-scan.js'
import {isSameProcessAlive} from './process-table.js'
import {applyScreen, isScreenContribution} from './screen-overlay.js'

export interface SessionKey {
  readonly agent: Agent
  readonly nativeId: string
}

export interface ComposeEnv {
  readonly store: Store
  readonly byAgent: ReadonlyMap<string, Adapter>
  readonly now: number
  readonly device: string
  readonly me: string
}

/** A claim is a live process only with a start time that matches (docs/contract.md §5: no start time, no proof of life). */
export function claimAlive(pid: number, startedAt: number | null | undefined): boolean {
  if (typeof startedAt !== 'number') return false
  return isSameProcessAlive(pid, startedAt)
}

/** A session's stored contributions, each process claim checked (once per pid and start time). */
function checkedContributions(store: Store, s: SessionKey, alive: Map<string, boolean>): CheckedContribution[] {
  return store.contributionsFor(s.agent, s.nativeId).map((c) => {
    const stored = JSON.parse(c.data) as Contribution
    // A stored claim alone may carry no facts (written by a registry reader or a tool as the claim
    // only): read it as knowing none, never as the whole composition's TypeError.
    const parsed = stored.facts === undefined ? {...stored, facts: {}} : stored
    if (!parsed.processClaim) return parsed
    const key = `${parsed.processClaim.pid}:${parsed.processClaim.startedAt}`
    let ok = alive.get(key)
    if (ok === undefined) {
      ok = claimAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
      alive.set(key, ok)
    }

    return {...parsed, processAlive: ok}
  })
}

/** The adapter's composition of its own sources, then the terminal fallbacks (null: it threw). */
function composeSession(adapter: Adapter, nativeId: string, contribs: readonly CheckedContribution[]): SessionFacts | null {
  try {
    // Terminal fallback (screen.ts): the adapter composes its own sources, then the screen
    // fills in a wait only where they cannot show one.
    const own = contribs.filter((c) => !isScreenContribution(c) && !isScanContribution(c))
    const composed = adapter.compose ? adapter.compose(nativeId, own) : composeFacts(own)
    // process-scan.ts: a claim where the files name no process; no claim where its absence proves nothing.
    const facts = unseenWriter(applyScan(composed, contribs), composed)
    return applyScreen(facts, contribs)
  } catch {
    return null
  }
}

/**
 * "No process holds it" (pid 0: a transcript its agent writes through one open handle that no
 * process holds open, as its notes under docs/agents/ say; a scan that found no agent process)
 * is read as a crash only where its writer would be visible: the folder the session recorded exists on this machine and /proc can be read. A session written from a container,
 * another PID namespace or another host sharing the files records a folder this machine does not
 * have (or none): there the absence proves nothing, the process fact is dropped (the files' own
 * facts and the turn-pending limit, rule 8, decide) and its source says why (`cast explain`).
 */
export function unseenWriter(facts: SessionFacts, before: SessionFacts, exists: (p: string) => boolean = fs.existsSync): SessionFacts {
  const proc = facts.process
  if (proc === null || proc.alive || proc.pid > 0 || proc.exited !== 'crash') return facts
  const cwd = facts.cwd
  let why: string | null = null
  const file = [facts.sources['settled'], facts.sources['turnIndex'], facts.sources['messages']].find((x) => x?.ref.startsWith('/'))?.ref
  const shared = file === undefined ? null : networkMount(file)
  if (!exists('/proc/self')) why = 'this machine has no /proc to see its process'
  else if (cwd === null) why = 'the session records no folder, so its process could run anywhere'
  else if (!exists(cwd)) why = `its folder ${cwd} is not on this machine (a container, another PID namespace or another host)`
  else if (shared !== null) why = `its file is on a ${shared} mount another host may write`
  if (why === null) return facts
  const note = {kind: 'process' as const, ref: `no process here holds it, but ${why}: not read as a crash`}
  // The facts as the files say them (a scan's "gone" also closes the asks: not here).
  return {...before, process: null, sources: {...before.sources, process: note}}
}

/** Compose facts for sessions from their stored contributions and reconcile the changed ones. */
export function recomposeSessions(env: ComposeEnv, sessions: readonly SessionKey[]): {sessions: number; transitions: number} {
  const changedIds: string[] = []
  const alive = new Map<string, boolean>()
  for (const s of sessions) {
    const adapter = env.byAgent.get(s.agent)
    if (!adapter) continue
    const contribs = checkedContributions(env.store, s, alive)
    if (contribs.length === 0) continue
    // Only files that describe the conversation create a session; a registry alone does not.
    if (!contribs.some((c) => c.facts.messages !== undefined || c.facts.title !== undefined || c.facts.cwd !== undefined)) continue
    const facts = composeSession(adapter, s.nativeId, contribs)
    if (facts === null) continue
    const r = env.store.upsertFacts(s.agent, s.nativeId, facts, facts.parentNativeId, {device: env.device, now: env.now, runner: env.me})
    if (r.changed) changedIds.push(r.id)
  }

  const rec = env.store.reconcile(env.now, changedIds)
  return {sessions: changedIds.length, transitions: rec.transitions}
}

/** The sessions whose stored process claim the process table now answers differently. */
export function claimsChanged(store: Store, claims: readonly {agent: string; nativeId: string; data: string}[]): SessionKey[] {
  const changed: SessionKey[] = []
  const seen = new Set<string>()
  const rows = new Map<string, SessionFacts>()
  for (const c of claims) {
    const key = `${c.agent}\0${c.nativeId}`
    if (seen.has(key)) continue
    const parsed = JSON.parse(c.data) as Contribution
    if (!parsed.processClaim) continue
    const nowAlive = claimAlive(parsed.processClaim.pid, parsed.processClaim.startedAt)
    let facts = rows.get(key)
    if (!facts) {
      const s = store.loadFactsByNative(c.agent, c.nativeId)
      if (!s) continue
      facts = s
      rows.set(key, s)
    }

    if (facts.process?.pid === parsed.processClaim.pid && facts.process.alive === nowAlive) continue
    if (facts.process && facts.process.pid !== parsed.processClaim.pid && facts.process.alive && !nowAlive) continue
    seen.add(key)
    changed.push({agent: c.agent, nativeId: c.nativeId})
  }

  return changed
}

/** Filesystems another host can write to (a writer there holds no handle here). */
const NETWORK_FS = /^(nfs4?|cifs|smb3?|9p|virtiofs|fuse\.sshfs|fuse\.rclone|ceph|glusterfs|afs|lustre|gpfs)$/

let mounts: {point: string; type: string}[] | null = null

/** The network filesystem type `file` lives on (from /proc/self/mountinfo), or null. */
function networkMount(file: string): string | null {
  if (mounts === null) {
    mounts = []
    try {
      for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
        const [left, right] = line.split(' - ')
        const point = left?.split(' ')[4]
        const type = right?.split(' ')[0]
        if (point && type) mounts.push({point: point.replaceAll('\\040', ' '), type})
      }
    } catch {
      // no /proc: unseenWriter says so first
    }
  }

  let best: {point: string; type: string} | null = null
  for (const m of mounts) {
    const inside = m.point === '/' || file === m.point || file.startsWith(m.point + '/')
    if (inside && (best === null || m.point.length >= best.point.length)) best = m
  }

  return best !== null && NETWORK_FS.test(best.type) ? best.type : null
}
