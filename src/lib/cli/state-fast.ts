/**
 * `cast state TEXT [--status S] [--session ID] [--json]` without oclif, for bin/run.js: agents run
 * it every turn. It answers with the same bytes and exit codes as the command
 * (src/commands/state/index.ts) whenever the session is found as the command finds it
 * (src/lib/agents/self-session.ts): --session, CAST_SESSION, the agent's own variable (a keyed
 * lookup on the UNIQUE (agent, native_id) index; a session whose process the store does not hold
 * live is proved live by the caller's ancestry, src/lib/agents/ancestry.ts), else, while a live
 * ingester keeps the claims current, the process tree (the claims on the caller's ancestors only). A live ingester keeps the store current; without
 * one, that session's own files are synced when their marks changed (src/lib/ingest/ingest.ts
 * syncOneSession), not the whole history. Anything else (a session not found, ambiguous, stdin,
 * a bad flag, help, an error to report) returns false and oclif runs the command.
 *
 * bin/run.js loads the one-file build of this module (dist/lib/cli/state-fast.bundle.js, made by
 * scripts/bundle-fast.mjs): the modules below are read as one file, the rarer paths (a sync, --json's
 * views) from dist as they are.
 */
import fs from 'node:fs'
import path from 'node:path'

import {HOLDING_AGENTS, SESSION_VARIABLES} from '../../adapters/session-variables.js'
import {isSameProcessAlive} from '../../core/ingest/process-table.js'
import {sameStat} from '../../core/ingest/same-stat.js'
import {resolveTyped, shortId} from '../../core/model/ids.js'
import {DECLARED_STATUSES, type DeclaredStatus, type SessionFacts} from '../../core/model/types.js'
import {Store} from '../../core/store/store.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import {ancestors, ancestryProcess} from '../agents/ancestry.js'
import {setDeclaredMark} from '../agents/turn-marks.js'
import {castHome, clockFrom, deviceName, whoAmI} from '../home/env.js'
import {INGESTER_LEASE, leaseIsLive} from '../ingest/lease.js'
import {MAX_TEXT_ARG} from './limits.js'

/** A state line is a short block: a sane limit keeps the inbox readable. */
export const MAX_STATE_TEXT = 4000

interface StateArgs {
  text: string
  status: DeclaredStatus
  session: string | undefined
  json: boolean
}

function parse(argv: readonly string[]): StateArgs | null {
  let text: string | undefined
  let status: string | undefined
  let session: string | undefined
  let json = false
  let positional = true
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a.length > MAX_TEXT_ARG) return null
    if (positional && a === '--') positional = false
    else if (positional && a === '--json') json = true
    else if (positional && (a === '--status' || a === '--session')) {
      const v = argv[++i]
      if (v === undefined || v.startsWith('-')) return null
      if (a === '--status') status = v
      else session = v
    } else if (positional && a.startsWith('--status=')) status = a.slice('--status='.length)
    else if (positional && a.startsWith('--session=')) session = a.slice('--session='.length)
    else if (positional && a.startsWith('-')) return null
    else if (text === undefined) text = a
    else return null
  }

  // What the command refuses or reads otherwise (no text, stdin, a subcommand) goes to oclif.
  if (text === undefined || text === '-' || text === 'show' || text === 'clear') return null
  if (status !== undefined && !(DECLARED_STATUSES as readonly string[]).includes(status)) return null
  text = text.replace(/\s+$/, '')
  const declared = (status ?? 'working') as DeclaredStatus
  if (text.length > MAX_STATE_TEXT || (declared === 'dormant' && text.trim() === '')) return null
  return {json, session: session === '' ? undefined : session, status: declared, text}
}

export async function fastState(argv: readonly string[]): Promise<boolean> {
  const env = process.env
  const args = parse(argv)
  // A test clock is refused by the command while a live ingester runs: leave that to it.
  if (args === null || env.CAST_NOW?.trim()) return false
  const home = castHome(env)
  if (!fs.existsSync(path.join(home, 'cast.db'))) return false
  let store: Store
  try {
    store = new Store(home)
  } catch {
    return false
  }

  try {
    const live = leaseIsLive(store.getLease(INGESTER_LEASE))
    const found = ownSession(store, args.session, env, live)
    if (found === null) return false
    const clock = clockFrom(env)
    if (live) {
      // As a synced store does (src/lib/ingest/ingest.ts syncBeforeRead): snoozes that came due wake first.
      sweepSnoozes(store, clock())
    } else if (!ownFilesUnchanged(store, found, home)) {
      // No live ingester: this session's own files, the hook spool and due snoozes, not the whole history.
      const {syncOneSession} = await import('../ingest/ingest.js')
      syncOneSession(store, env, clock, whoAmI(env), found)
    } else sweepSnoozes(store, clock())

    const now = clock()
    store.tx(() => {
      let row = store.loadSessions([found.id])[0]!
      // The caller runs inside the agent: its ancestry proves the agent alive where this process
      // cannot see it (as the command does, src/commands/state/index.ts).
      const proc = ancestryProcess(row.agent, found, row.facts.process, now)
      if (proc !== null) {
        const facts: SessionFacts = {...row.facts, process: proc, sources: {...row.facts.sources, process: proc.source}}
        // The session exists: upsertFacts updates its facts and never reads the runner (set on a first sight only).
        store.upsertFacts(row.agent, row.nativeId, facts, facts.parentNativeId, {device: deviceName(), now, runner: ''})
        row = store.loadSessions([found.id])[0]!
      }

      store.patchRecords(found.id, {
        declaration: {at: now, messages: row.facts.messages, status: args.status, text: args.text, turnIndex: row.facts.turnIndex},
      })
      store.reconcile(now, [found.id])
    })
    // Declared: from here on an error is reported, never handed to oclif (which would declare again).
    await report(store, found, args, env, now).catch((error: Error) => {
      process.stderr.write(`cast: the state was declared, but printing it failed: ${error.message}\n`)
      process.exitCode = 1
    })
    return true
  } finally {
    store.close()
  }
}

async function report(store: Store, found: Found, args: StateArgs, env: NodeJS.ProcessEnv, now: number): Promise<void> {
  const row = store.loadSessions([found.id])[0]!
  setDeclaredMark(env, row.agent, row.nativeId, args.status !== 'working')
  if (args.json) {
    const {sessionJson} = await import('../views/views.js')
    out(JSON.stringify({session: sessionJson(row, whoAmI(env), now), via: found.via}, null, 2) + '\n')
  } else {
    const head = args.text ? ` — ${args.text.split('\n')[0]}` : ''
    out(`${shortId(row.id)}: ${args.status}${head}  (now ${row.state}:${row.reason}; found via ${found.via})\n`)
  }
}

/**
 * Write to fd 1 directly: process.stdout would load the stream and tty modules for one line. A
 * descriptor that would block (a non-blocking pipe someone handed us, full) goes through the stream.
 */
function out(text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(1, bytes, done)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
    process.stdout.write(bytes.subarray(done))
  }
}

interface Found {
  id: string
  via: string
  agent: string
  nativeId: string
}

/**
 * The session named by --session, CAST_SESSION, an agent's variable or the process tree, found as
 * src/lib/agents/self-session.ts findOwnSession finds it, by keyed lookups; null when that is not
 * exactly one session (the command then says why, or waits for a claim).
 */
function ownSession(store: Store, flag: string | undefined, env: NodeJS.ProcessEnv, live: boolean): Found | null {
  const one = (typed: string, via: string): Found | null => {
    const candidates = store.sessionIdCandidates(typed.trim())
    const r = resolveTyped(typed, candidates)
    if (r.kind !== 'one') return null
    const c = candidates.find((k) => k.id === r.id)!
    return {agent: c.agent, id: r.id, nativeId: c.nativeId, via}
  }

  if (flag) return one(flag, env.CAST_SESSION === flag ? 'CAST_SESSION' : '--session')
  if (env.CAST_SESSION) return one(env.CAST_SESSION, 'CAST_SESSION')
  let named = false
  for (const v of SESSION_VARIABLES) {
    const value = env[v.name]
    if (!value) continue
    named = true
    const id = store.sessionIdByNative(v.agent, value)
    if (id !== null) return {agent: v.agent, id, nativeId: value, via: v.name}
  }

  // The command syncs before it looks: a session an agent names but the store does not hold yet
  // (a new one, after /clear in the same process) is found by its variable then, never by the
  // process tree's older claim. The stored claims are current only while a live ingester keeps them.
  return named || !live ? null : fromProcessTree(store, process.ppid)
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

/**
 * With no live ingester: can the sync before the declaration be skipped? Only when a pass over the
 * session's own files would read nothing (src/core/ingest/stat-sweep.ts unchangedFile: every file's
 * mark as stored, no last line waiting to be tried, no holder recorded, an agent whose files the
 * engine does not check for holders) and the hook spool holds no event.
 */
function ownFilesUnchanged(store: Store, found: Found, home: string): boolean {
  if (HOLDING_AGENTS.includes(found.agent)) return false
  for (const f of store.filesFor(found.agent, found.nativeId)) {
    if (f.path.includes('://')) continue
    if (f.kind === 'sqlite' || f.holder !== null || f.offset < f.size) return false
    let st: fs.Stats | undefined
    try {
      st = fs.statSync(f.path, {throwIfNoEntry: false})
    } catch {
      return false
    }

    if (!st?.isFile() || !sameStat(f, st)) return false
  }

  try {
    return fs.readdirSync(path.join(home, 'spool')).every((n) => n.startsWith('.'))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}
