/**
 * `cast sessions -w`: one line per transition, flushed at once (DESIGN §6.1). Runs the ingester
 * in-process when nobody holds the lease, else tails the transitions log. Exits 0 quietly on
 * SIGINT/SIGTERM and when the reader closes the pipe (even with nothing to write: see
 * reader-gone.ts), closing the store cleanly.
 *
 * Membership (issue 13 point 5): the view is what the filters select (ownership, label, agent,
 * cwd; dismissed and hidden rows only with --all). A session entering or leaving it — by its own
 * transition or by a person's action (own, disown, label, a filing, undo: a `history` row) —
 * prints one `enter` / `leave` line instead of a transition; `gone` (killed, dismissed) stays
 * as it was. Transitions of sessions outside the view print nothing.
 */
import {LiveIngester} from '../core/ingest/live.js'
import {shortId} from '../core/model/ids.js'
import type {SessionRow, Transition} from '../core/store/store.js'
import {castHome, clockFrom, type Env, whoAmI} from './env.js'
import {INGESTER_LEASE, leaseIsLive, makeIngester} from './ingest.js'
import {consumeSpool, spoolDir} from '../core/ingest/spool.js'
import {historyMark, historySessionsAfter} from '../core/store/watch-marks.js'
import {onReaderGone} from './reader-gone.js'
import {oneLine} from './sanitize.js'
import {type ListFilters, localTime, matchesFilters, titleOf, watchLine} from './views.js'

export interface WatchFlags {
  agent?: string[]
  all?: boolean
  cwd?: string
  label?: string[]
  quiet?: boolean
  state?: string[]
  team?: boolean
  since?: number
  snapshot?: boolean
}

/** How often a tailing watcher looks at the log, and checks whether it should take over the lease. */
const TAIL_MS = 50
/** While this process is the ingester: other writers' changes only. */
const LIVE_TAIL_MS = 200

export async function watchSessions(flags: WatchFlags, json: boolean, env: Env = process.env): Promise<void> {
  const {Store} = await import('../core/store/store.js')
  const store = new Store(castHome(env))
  const clock = clockFrom(env)
  const me = whoAmI(env)
  const filters: ListFilters = {
    agent: flags.agent,
    all: true,
    cwd: flags.cwd,
    label: flags.label,
    quiet: flags.quiet,
    states: flags.state,
    team: flags.team,
  }
  let closed = false
  let live: LiveIngester | null = null
  // The team store (issue 17): while this watch is the ingester, it publishes and carries out
  // teammates' actions as cast daemon does (the same TeamSync); the lease holder does it otherwise.
  let team: {kick(): void; stop(): Promise<void>} | null = null
  let tail: NodeJS.Timeout | null = null
  let done!: () => void
  const finished = new Promise<void>((resolve) => {
    done = resolve
  })

  const shutdown = async (): Promise<void> => {
    if (closed) return
    closed = true
    // Whatever happens below, the process leaves: a stuck watcher must not keep it alive.
    setTimeout(() => process.exit(0), 3000).unref()
    if (tail) clearTimeout(tail)
    await team?.stop().catch(() => {})
    await live?.stop()
    store.close()
    done()
    // Nothing is left to do: leave even if a watcher handle (chokidar, the pipe) lingers.
    setTimeout(() => process.exit(0), 100).unref()
  }

  const write = (line: string): boolean => {
    if (closed) return false
    try {
      process.stdout.write(line + '\n')
      return true
    } catch {
      void shutdown()
      return false
    }
  }

  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    // The reader closed the pipe: exit 0 quietly.
    if (e.code === 'EPIPE') void shutdown()
  })
  // The reader closed the pipe while there was nothing to write.
  onReaderGone(1, () => void shutdown())
  process.once('SIGINT', () => void shutdown())
  process.once('SIGTERM', () => void shutdown())

  const home = castHome(env)
  // The settle classifier (issue 14) runs beside the in-process ingester, when configured.
  const {settleRunnerFor} = await import('./classifier.js')
  const settleLog = (m: string): boolean => process.stderr.write(`cast: ${m}\n`)
  const newIngester = async (): Promise<LiveIngester> => {
    const ingester = makeIngester(store, env, clock, me)
    const settle = await settleRunnerFor(store, env, clock, settleLog)
    return new LiveIngester(store, ingester, {
      clock,
      extraDirs: [spoolDir(home)],
      leaseName: INGESTER_LEASE,
      log: (m) => process.stderr.write(`cast: ${m}\n`),
      onChange: () => {
        pump()
        team?.kick()
      },
      onExtra: () => consumeSpool(store, ingester, home, clock),
      settle,
      // Another ingester took the lease over: this one stopped writing; tail what the holder writes.
      onLost: () => {
        live = null
        const t = team
        team = null
        void t?.stop().catch(() => {})
      },
    })
  }

  // Take the lease when it is free; otherwise tail what the holder writes.
  const tryTakeOver = async (): Promise<boolean> => {
    if (live || closed) return false
    if (leaseIsLive(store.getLease(INGESTER_LEASE))) return false
    const candidate = await newIngester()
    if (!candidate.tryAcquire((l) => !leaseIsLive(l))) return false
    live = candidate
    candidate.catchUp()
    // Without --since, the stream starts after what the catch-up found: nothing until a change.
    if (lastSeq < 0 && flags.since === undefined) lastSeq = store.lastSeq()
    await candidate.watch()
    if (!team && !closed) team = await startTeam().catch(() => null)
    return true
  }

  const startTeam = async (): Promise<{kick(): void; stop(): Promise<void>} | null> => {
    const {loadConfig} = await import('./config.js')
    const {deviceName} = await import('./env.js')
    const {startTeamSync} = await import('../core/store/team/index.js')
    const log = (m: string): boolean => process.stderr.write(`cast: ${m}\n`)
    return startTeamSync(store, env, await loadConfig(env), {clock, device: deviceName(env), log, me})
  }

  const inView = (row: SessionRow | undefined): boolean => row !== undefined && viewHas(row, me, clock(), filters, flags.all === true)
  const members = new Map<string, boolean>()
  for (const row of store.loadSessions()) members.set(row.id, inView(row))
  let mark = historyMark(store)

  const emit = (t: Transition, row: SessionRow | undefined): boolean => {
    const now = inView(row)
    // A session first met after the watch started (found by its catch-up) had no view to change.
    const was = members.get(t.sessionId) ?? (t.event === 'new' ? false : now)
    members.set(t.sessionId, now)
    let line: Transition | null = null
    if (t.event === 'gone' || t.event === 'new') line = now || was ? t : null
    else if (was && !now) line = {...t, event: 'leave' as Transition['event']}
    else if (!was && now) line = {...t, event: 'enter' as Transition['event']}
    else if (now && transitionMatches(t, row, me, clock(), filters)) line = t
    if (line === null) return true
    return write(json ? JSON.stringify(watchLine(line, row, me)) : humanLine(line, row))
  }

  /** A person's action changed records without a transition (own, label, undo): re-check those sessions. */
  const recheck = (): void => {
    const next = historyMark(store)
    if (next.lastId === mark.lastId && next.undone === mark.undone) return
    const ids = next.undone === mark.undone ? historySessionsAfter(store, mark.lastId) : [...members.keys(), ...historySessionsAfter(store, mark.lastId)]
    mark = next
    const seq = Math.max(lastSeq, 0)
    for (const row of store.loadSessions([...new Set(ids)])) {
      const was = members.get(row.id) ?? false
      const now = inView(row)
      if (was === now) continue
      members.set(row.id, now)
      const t: Transition = {bucket: row.bucket, event: (now ? 'enter' : 'leave') as Transition['event'], from: row.state, fromBucket: row.bucket, reason: row.reason, seq, sessionId: row.id, to: row.state, ts: clock()}
      if (!write(json ? JSON.stringify(watchLine(t, row, me)) : humanLine(t, row))) return
    }
  }

  let lastSeq = flags.since ?? -1
  const pump = (): void => {
    if (closed || lastSeq < 0) return
    for (;;) {
      const batch = store.transitionsSince(lastSeq, 500)
      if (batch.length === 0) break
      const rows = new Map(store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
      for (const t of batch) {
        lastSeq = t.seq
        if (!emit(t, rows.get(t.sessionId))) return
      }
    }

    recheck()
  }

  if (!json) {
    const shown = [flags.team ? 'team' : 'your inbox', ...describeFilters(flags)].join(', ')
    write(`cast sessions -w · ${oneLine(me)} · ${shown} — one line per change, Ctrl-C stops`)
    write('time      event   id       change                         title')
  }

  await tryTakeOver()
  if (closed) return finished
  if (lastSeq < 0) lastSeq = store.lastSeq()
  if (flags.snapshot) {
    const now = clock()
    const seq = store.lastSeq()
    for (const row of store.loadSessions()) {
      if (row.bucket === 'folded' || !matchesFilters(row, me, now, filters)) continue
      const line = watchLine({event: 'snapshot', seq, ts: now}, row, me)
      if (!write(json ? JSON.stringify(line) : humanLine({bucket: row.bucket, event: 'snapshot' as Transition['event'], from: null, fromBucket: null, reason: row.reason, seq, sessionId: row.id, to: row.state, ts: now}, row))) break
    }
  }

  pump()
  // Tailing another ingester: look at the log often. Holding the lease ourselves, our own passes
  // pump at once; the poll only picks up other writers' changes (cast state, pin, …), so it can
  // be slower, which keeps the idle watcher cheap.
  const schedule = (): void => {
    tail = setTimeout(() => {
      if (closed) return
      pump()
      if (!live) void tryTakeOver()
      schedule()
    }, live ? LIVE_TAIL_MS : TAIL_MS)
  }

  schedule()
  await finished
}

function transitionMatches(t: Transition, row: SessionRow | undefined, me: string, now: number, f: ListFilters): boolean {
  if (!row) return false
  // Subagents stream only when a script asks for them by label (spawned workers under a parent).
  if (row.bucket === 'folded' && t.bucket === 'folded' && !f.label) return false
  // Filters look at the transition's target state, the rest at the session.
  if (f.states && f.states.length > 0 && !f.states.includes(t.to)) return false
  return matchesFilters(row, me, now, {...f, quiet: false, states: undefined})
}

/** Is the session in the watched view (the filters without --state, which selects transitions)? */
function viewHas(row: SessionRow, me: string, now: number, f: ListFilters, all: boolean): boolean {
  if (row.bucket === 'folded' && !f.label) return false
  if (!all && (row.bucket === 'dismissed' || row.bucket === 'hidden')) return false
  return matchesFilters(row, me, now, {...f, quiet: false, states: undefined})
}

function describeFilters(flags: WatchFlags): string[] {
  const out: string[] = []
  if (flags.state?.length) out.push(`state ${flags.state.join(',')}`)
  if (flags.agent && flags.agent.length > 0) out.push(`agent ${flags.agent.join(',')}`)
  if (flags.label && flags.label.length > 0) out.push(`label ${oneLine(flags.label.join(','))}`)
  if (flags.cwd) out.push(`under ${oneLine(flags.cwd)}`)
  if (flags.quiet) out.push('quiet')
  if (flags.all) out.push('all')
  return out
}

const EVENT_WORD: Record<string, string> = {enter: 'enters', gone: 'gone', leave: 'leaves', new: 'new', snapshot: 'now', transition: 'moved'}

/** One readable line per change: local time, what happened, the short id, state and reason, title. */
function humanLine(t: Transition, row: SessionRow | undefined): string {
  const time = localTime(t.ts, t.ts).padEnd(8)
  const change =
    t.event === 'transition' && t.from !== null
      ? `${t.from.replace('_', ' ')} → ${t.to.replace('_', ' ')}:${t.reason}`
      : `${t.to.replace('_', ' ')}:${t.reason}`
  const where = t.bucket === 'questions' || t.bucket === t.to ? '' : ` [${t.bucket}]`
  const title = row ? oneLine(titleOf(row) ?? '(untitled)') : ''
  return `${time}  ${(EVENT_WORD[t.event] ?? t.event).padEnd(6)}  ${shortId(t.sessionId)}  ${(change + where).padEnd(30)}  ${title}`
}
