/**
 * `cast sessions -w`: one line per transition, flushed at once (DESIGN §6.1). Runs the ingester
 * in-process when nobody holds the lease, else tails the transitions log. Exits 0 quietly on
 * SIGINT/SIGTERM and when the reader closes the pipe, closing the store cleanly.
 */
import {LiveIngester} from '../core/ingest/live.js'
import {shortId} from '../core/model/ids.js'
import type {SessionRow, Transition} from '../core/store/store.js'
import {castHome, clockFrom, type Env, whoAmI} from './env.js'
import {INGESTER_LEASE, leaseIsLive, makeIngester} from './ingest.js'
import {consumeSpool, spoolDir} from '../core/ingest/spool.js'
import {type ListFilters, matchesFilters, titleOf, watchLine} from './views.js'

export interface WatchFlags {
  agent?: string
  all?: boolean
  cwd?: string
  label?: string
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
    await live?.stop()
    store.close()
    done()
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
  process.once('SIGINT', () => void shutdown())
  process.once('SIGTERM', () => void shutdown())

  const home = castHome(env)
  const newIngester = (): LiveIngester => {
    const ingester = makeIngester(store, env, clock, me)
    return new LiveIngester(store, ingester, {
      clock,
      extraDirs: [spoolDir(home)],
      leaseName: INGESTER_LEASE,
      log: (m) => process.stderr.write(`cast: ${m}\n`),
      onChange: () => pump(),
      onExtra: () => consumeSpool(store, ingester, home, clock),
      // Another ingester took the lease over: this one stopped writing; tail what the holder writes.
      onLost: () => {
        live = null
      },
    })
  }

  // Take the lease when it is free; otherwise tail what the holder writes.
  const tryTakeOver = async (): Promise<boolean> => {
    if (live || closed) return false
    if (leaseIsLive(store.getLease(INGESTER_LEASE))) return false
    const candidate = newIngester()
    if (!candidate.tryAcquire((l) => !leaseIsLive(l))) return false
    live = candidate
    candidate.catchUp()
    // Without --since, the stream starts after what the catch-up found: nothing until a change.
    if (lastSeq < 0 && flags.since === undefined) lastSeq = store.lastSeq()
    await candidate.watch()
    return true
  }

  let lastSeq = flags.since ?? -1
  const pump = (): void => {
    if (closed || lastSeq < 0) return
    for (;;) {
      const batch = store.transitionsSince(lastSeq, 500)
      if (batch.length === 0) return
      const rows = new Map(store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
      for (const t of batch) {
        lastSeq = t.seq
        const row = rows.get(t.sessionId)
        if (!transitionMatches(t, row, me, clock(), filters)) continue
        if (!write(json ? JSON.stringify(watchLine(t, row, me)) : humanLine(t, row))) return
      }
    }
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
      if (!write(json ? JSON.stringify(line) : `snapshot  ${shortId(row.id)}  ${row.state}:${row.reason}  [${row.bucket}]  ${titleOf(row) ?? ''}`)) break
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

function humanLine(t: Transition, row: SessionRow | undefined): string {
  const time = new Date(t.ts).toISOString().slice(11, 19)
  const from = t.from ?? '∅'
  const title = row ? (titleOf(row) ?? '') : ''
  return `${time}  #${t.seq}  ${shortId(t.sessionId)}  ${t.event === 'transition' ? '' : t.event + ' '}${from} → ${t.to} (${t.reason}) [${t.bucket}]  ${title}`
}
