/**
 * `cast sessions -w`: one line per transition, flushed at once (docs/contract.md §6.1). Runs the ingester
 * in-process when nobody holds the lease, else tails the transitions log. Exits 0 quietly on
 * SIGINT/SIGTERM and when the reader closes the pipe (even with nothing to write: see
 * reader-gone.ts), closing the store cleanly.
 *
 * Membership: the view is what the filters select (ownership, label, agent,
 * cwd; dismissed and hidden rows only with --all). A session entering or leaving it — by its own
 * transition or by a person's action (own, disown, label, a filing, undo: a `history` row) —
 * prints one `enter` / `leave` line instead of a transition; `gone` (killed, dismissed) stays
 * as it was. Transitions of sessions outside the view print nothing.
 */
import {LiveIngester} from '../../core/ingest/live.js'
import {shortId} from '../../core/model/ids.js'
import type {SessionRow, Store, Transition} from '../../core/store/store.js'
import {castHome, clockFrom, type Env, whoAmI} from '../home/env.js'
import {INGESTER_LEASE, leaseIsLive, makeIngester} from '../ingest/ingest.js'
import {consumeSpool, spoolDir} from '../../core/ingest/spool.js'
import {historyMark, historySessionsAfter} from '../../core/store/watch-marks.js'
import {onReaderGone} from '../base/reader-gone.js'
import {oneLine} from '../../core/model/sanitize.js'
import {inView} from '../../core/model/view.js'
import {fitLine, terminalWidth} from './style.js'
import {type ListFilters, localTime, titleOf, type WatchChange, type WatchEvent, watchLine, type WatchSnapshot} from './views.js'
import type {RunCast} from '../team/executor.js'

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

type TeamHandle = {kick(): void; stop(): Promise<void>}

/**
 * `cast sessions -w`. `teamRunner`: how teammates' actions are carried out while this watch is the
 * ingester (src/lib/verbs/team-runner.ts castRunner, handed in by the command: the verbs sit above
 * the views); without it the watch does not run the team's loops.
 */
export async function watchSessions(
  flags: WatchFlags,
  json: boolean,
  env: Env = process.env,
  teamRunner?: (env: Env) => RunCast,
): Promise<void> {
  const {Store} = await import('../../core/store/store.js')
  const w = new SessionWatch(new Store(castHome(env)), flags, json, env, teamRunner)
  w.listenForExit()
  // The settle classifier runs beside the in-process ingester, when configured.
  const {settleRunnerFor} = await import('../ingest/classifier.js')
  return w.run(settleRunnerFor)
}

/** One `cast sessions -w`: the view's members, the log's position, the in-process ingester while it holds the lease. */
class SessionWatch {
  private readonly clock: () => number
  private readonly me: string
  private readonly home: string
  private readonly filters: ListFilters
  private closed = false
  private live: LiveIngester | null = null
  // The team store: while this watch is the ingester, it publishes and carries out
  // teammates' actions as cast daemon does (the same TeamSync); the lease holder does it otherwise.
  private team: TeamHandle | null = null
  private tail: NodeJS.Timeout | null = null
  private lastSeq: number
  private readonly members = new Map<string, boolean>()
  private mark: ReturnType<typeof historyMark> | null = null
  private done!: () => void
  private readonly finished = new Promise<void>((resolve) => {
    this.done = resolve
  })

  private settleRunnerFor: (typeof import('../ingest/classifier.js'))['settleRunnerFor'] | null = null

  constructor(
    private readonly store: Store,
    private readonly flags: WatchFlags,
    private readonly json: boolean,
    private readonly env: Env,
    private readonly teamRunner?: (env: Env) => RunCast,
  ) {
    this.clock = clockFrom(env)
    this.me = whoAmI(env)
    this.home = castHome(env)
    this.filters = {
      agent: flags.agent,
      all: true,
      cwd: flags.cwd,
      label: flags.label,
      quiet: flags.quiet,
      states: flags.state,
      team: flags.team,
    }
    this.lastSeq = flags.since ?? -1
  }

  private async shutdown(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Whatever happens below, the process leaves: a stuck watcher must not keep it alive.
    setTimeout(() => process.exit(0), 3000).unref()
    if (this.tail) clearTimeout(this.tail)
    await this.team?.stop().catch(() => {})
    await this.live?.stop()
    this.store.close()
    this.done()
    // Nothing is left to do: leave even if a watcher handle (chokidar, the pipe) lingers.
    setTimeout(() => process.exit(0), 100).unref()
  }

  private write(line: string): boolean {
    if (this.closed) return false
    try {
      process.stdout.write(line + '\n')
      return true
    } catch {
      void this.shutdown()
      return false
    }
  }

  /** Exit 0 quietly on SIGINT/SIGTERM and when the reader closes the pipe. */
  listenForExit(): void {
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      // The reader closed the pipe: exit 0 quietly.
      if (e.code === 'EPIPE') void this.shutdown()
    })
    // The reader closed the pipe while there was nothing to write.
    onReaderGone(1, () => void this.shutdown())
    process.once('SIGINT', () => void this.shutdown())
    process.once('SIGTERM', () => void this.shutdown())
  }

  private async newIngester(): Promise<LiveIngester> {
    const {clock, env, home, me, store} = this
    const ingester = makeIngester(store, env, clock, me)
    const settleLog = (m: string): boolean => process.stderr.write(`cast: ${m}\n`)
    const settle = await this.settleRunnerFor!(store, env, clock, settleLog)
    return new LiveIngester(store, ingester, {
      clock,
      extraDirs: [spoolDir(home)],
      leaseName: INGESTER_LEASE,
      log: (m) => process.stderr.write(`cast: ${m}\n`),
      onChange: () => {
        this.pump()
        this.team?.kick()
      },
      onExtra: () => consumeSpool(store, ingester, home, clock),
      settle,
      // Another ingester took the lease over: this one stopped writing; tail what the holder writes.
      onLost: () => {
        this.live = null
        const t = this.team
        this.team = null
        void t?.stop().catch(() => {})
      },
    })
  }

  /** Take the lease when it is free; otherwise tail what the holder writes. */
  private async tryTakeOver(): Promise<boolean> {
    if (this.live || this.closed) return false
    if (leaseIsLive(this.store.getLease(INGESTER_LEASE))) return false
    const candidate = await this.newIngester()
    if (!candidate.tryAcquire((l) => !leaseIsLive(l))) return false
    this.live = candidate
    candidate.catchUp()
    // Without --since, the stream starts after what the catch-up found: nothing until a change.
    if (this.lastSeq < 0 && this.flags.since === undefined) this.lastSeq = this.store.lastSeq()
    await candidate.watch()
    if (!this.team && !this.closed) this.team = await this.startTeam().catch(() => null)
    return true
  }

  private async startTeam(): Promise<TeamHandle | null> {
    if (this.teamRunner === undefined) return null
    const {loadConfig} = await import('../home/config.js')
    const {deviceName} = await import('../home/env.js')
    const {startTeamSync} = await import('../team/index.js')
    const log = (m: string): boolean => process.stderr.write(`cast: ${m}\n`)
    return startTeamSync(this.store, this.env, await loadConfig(this.env), {
      clock: this.clock,
      device: deviceName(this.env),
      log,
      me: this.me,
      run: this.teamRunner(this.env),
    })
  }

  private inView(row: SessionRow | undefined): boolean {
    return row !== undefined && viewHas(row, this.me, this.clock(), this.filters, this.flags.all === true)
  }

  private line(t: WatchChange, row: SessionRow | undefined): string {
    return this.json ? JSON.stringify(watchLine(t, row, this.me)) : humanLine(t, row)
  }

  private emit(t: Transition, row: SessionRow | undefined): boolean {
    const now = this.inView(row)
    // A session first met after the watch started (found by its catch-up) had no view to change.
    const was = this.members.get(t.sessionId) ?? (t.event === 'new' ? false : now)
    this.members.set(t.sessionId, now)
    let line: WatchChange | null = null
    if (t.event === 'gone' || t.event === 'new') line = now || was ? t : null
    else if (was && !now) line = {...t, event: 'leave'}
    else if (!was && now) line = {...t, event: 'enter'}
    else if (now && transitionMatches(t, row, this.me, this.clock(), this.filters)) line = t
    if (line === null) return true
    return this.write(this.line(line, row))
  }

  /** A person's action changed records without a transition (own, label, undo): re-check those sessions. */
  private recheck(): void {
    const {store} = this
    const mark = this.mark!
    const next = historyMark(store)
    if (next.lastId === mark.lastId && next.undone === mark.undone) return
    const ids =
      next.undone === mark.undone
        ? historySessionsAfter(store, mark.lastId)
        : [...this.members.keys(), ...historySessionsAfter(store, mark.lastId)]
    this.mark = next
    const seq = Math.max(this.lastSeq, 0)
    for (const row of store.loadSessions([...new Set(ids)])) {
      const was = this.members.get(row.id) ?? false
      const now = this.inView(row)
      if (was === now) continue
      this.members.set(row.id, now)
      const t: WatchChange = {
        bucket: row.bucket,
        event: now ? 'enter' : 'leave',
        from: row.state,
        fromBucket: row.bucket,
        reason: row.reason,
        seq,
        sessionId: row.id,
        to: row.state,
        ts: this.clock(),
      }
      if (!this.write(this.line(t, row))) return
    }
  }

  private pump(): void {
    if (this.closed || this.lastSeq < 0) return
    for (;;) {
      const batch = this.store.transitionsSince(this.lastSeq, 500)
      if (batch.length === 0) break
      const rows = new Map(this.store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
      for (const t of batch) {
        this.lastSeq = t.seq
        if (!this.emit(t, rows.get(t.sessionId))) return
      }
    }

    this.recheck()
  }

  /** --snapshot: one line per session in the view, now. */
  private snapshot(): void {
    const now = this.clock()
    const seq = this.store.lastSeq()
    for (const row of this.store.loadSessions()) {
      if (row.bucket === 'folded' || !inView(row, this.me, now, this.filters)) continue
      const line = watchLine({event: 'snapshot', seq, ts: now}, row, this.me)
      const human: WatchSnapshot = {
        bucket: row.bucket,
        event: 'snapshot',
        from: null,
        fromBucket: null,
        reason: row.reason,
        seq,
        sessionId: row.id,
        to: row.state,
        ts: now,
      }
      if (!this.write(this.json ? JSON.stringify(line) : humanLine(human, row))) break
    }
  }

  /**
   * Tailing another ingester: look at the log often. Holding the lease ourselves, our own passes
   * pump at once; the poll only picks up other writers' changes (cast state, pin, …), so it can
   * be slower, which keeps the idle watcher cheap.
   */
  private schedule(): void {
    this.tail = setTimeout(
      () => {
        if (this.closed) return
        this.pump()
        if (!this.live) void this.tryTakeOver()
        this.schedule()
      },
      this.live ? LIVE_TAIL_MS : TAIL_MS,
    )
  }

  async run(settleRunnerFor: (typeof import('../ingest/classifier.js'))['settleRunnerFor']): Promise<void> {
    this.settleRunnerFor = settleRunnerFor
    for (const row of this.store.loadSessions()) this.members.set(row.id, this.inView(row))
    this.mark = historyMark(this.store)
    if (!this.json) {
      const shown = [this.flags.team ? 'team' : 'your inbox', ...describeFilters(this.flags)].join(', ')
      this.write(fitLine(`cast sessions -w · ${oneLine(this.me)} · ${shown} — one line per change, Ctrl-C stops`, terminalWidth()))
      this.write(fitLine('time      event   id       change                         title', terminalWidth()))
    }

    await this.tryTakeOver()
    if (this.closed) return this.finished
    if (this.lastSeq < 0) this.lastSeq = this.store.lastSeq()
    if (this.flags.snapshot) this.snapshot()
    this.pump()
    this.schedule()
    await this.finished
  }
}

function transitionMatches(t: Transition, row: SessionRow | undefined, me: string, now: number, f: ListFilters): boolean {
  if (!row) return false
  // Subagents stream only when a script asks for them by label (spawned workers under a parent).
  if (row.bucket === 'folded' && t.bucket === 'folded' && !f.label) return false
  // Filters look at the transition's target state, the rest at the session.
  if (f.states && f.states.length > 0 && !f.states.includes(t.to)) return false
  return inView(row, me, now, {...f, quiet: false, states: undefined})
}

/** Is the session in the watched view (the filters without --state, which selects transitions)? */
function viewHas(row: SessionRow, me: string, now: number, f: ListFilters, all: boolean): boolean {
  if (row.bucket === 'folded' && !f.label) return false
  if (!all && (row.bucket === 'dismissed' || row.bucket === 'hidden')) return false
  return inView(row, me, now, {...f, quiet: false, states: undefined})
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

const EVENT_WORD: Record<WatchEvent, string> = {
  enter: 'enters',
  gone: 'gone',
  leave: 'leaves',
  new: 'new',
  snapshot: 'now',
  transition: 'moved',
}

/**
 * One readable line per change: local time, what happened, the short id, state and reason, title;
 * the title (last, escaped) is cut with … to the terminal's width (none in a pipe).
 */
function humanLine(t: WatchChange | WatchSnapshot, row: SessionRow | undefined): string {
  return fitLine(plainLine(t, row), terminalWidth())
}

function plainLine(t: WatchChange | WatchSnapshot, row: SessionRow | undefined): string {
  const time = localTime(t.ts, t.ts).padEnd(8)
  const change =
    t.event === 'transition' && t.from !== null
      ? `${t.from.replace('_', ' ')} → ${t.to.replace('_', ' ')}:${t.reason}`
      : `${t.to.replace('_', ' ')}:${t.reason}`
  const where = t.bucket === 'questions' || t.bucket === t.to ? '' : ` [${t.bucket}]`
  const title = row ? oneLine(titleOf(row) ?? '(untitled)') : ''
  return `${time}  ${EVENT_WORD[t.event].padEnd(6)}  ${shortId(t.sessionId)}  ${(change + where).padEnd(30)}  ${title}`
}
