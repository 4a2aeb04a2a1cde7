/**
 * The live ingester: holds the lease, watches the adapters' roots with chokidar (events coalesced
 * per file), consumes the hook spool, re-checks known pids every second, and wakes once at the
 * earliest next_check_at for time-based changes. No per-session polling.
 */
import {randomUUID} from 'node:crypto'
import fs from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'

import type {Store} from '../store/store.js'
import type {Ingester} from './engine.js'
import {FOLDER_SWEEP_MS, FolderSweep, NewDirs, openWatcher, TrailingRestat} from './live-watch.js'
import {LostEvents} from './lost-events.js'
import {SCREEN_SWEEP_MS, screenSweepOf} from './screen.js'

export interface LiveOptions {
  readonly leaseName: string
  /** Coalescing window for file events. */
  readonly debounceMs?: number
  /** Extra directories to watch (the hook spool). */
  readonly extraDirs?: readonly string[]
  /** Called after every pass that may have written transitions. */
  readonly onChange?: () => void
  /** Called for each change in an extra directory (the spool consumer). */
  readonly onExtra?: () => void
  readonly log?: (msg: string) => void
  /** The clock time rules use (CAST_NOW or the real one). */
  readonly clock: () => number
  /** Another ingester took the lease over: this one has stopped writing (and watching). */
  readonly onLost?: () => void
  /** The settle classifier (classifier.ts): poked after each pass, off the ingest path. */
  readonly settle?: {poke(onWrite: () => void): void; stop(): Promise<void>}
}

/** A crash must read dead within 2 s (docs/contract.md §5): the claims are re-checked twice a second. */
export const PID_RECHECK_MS = 500
export const HEARTBEAT_MS = 2000
/**
 * After each pass, the files it read are stat'ed again this much later: chokidar drops a second
 * `change` of a path within 50 ms of the first, so a write landing there is only seen this way.
 */
export const TRAILING_RESTAT_MS = 70
/** The periodic stat sweep of the files whose state can still change (engine.sweep()). */
export const STAT_SWEEP_MS = 2000

/** Thrown inside a write transaction when the lease is no longer ours: the transaction rolls back. */
export class LeaseLostError extends Error {
  override name = 'LeaseLostError'
}

export class LiveIngester {
  private watcher: {close(): Promise<void>} | null = null
  private pending = new Set<string>()
  private flushTimer: NodeJS.Timeout | null = null
  private timeTimer: NodeJS.Timeout | null = null
  private intervals: NodeJS.Timeout[] = []
  private stopped = false
  readonly startedAt = Date.now()
  watched = 0
  passes = 0
  /** The watcher is up: every change from now on is seen. */
  ready = false
  /** Releases a start-up that is still waiting for the watcher when stop() comes. */
  private onStop: (() => void) | null = null
  /** The last failure logged per part of the loop, so a streak is logged once. */
  private readonly failing = new Map<string, string>()
  /** A pass failed (nothing of it was committed): the next one reads everything and the spool again. */
  private retry = false
  /** Names this holder in the lease (pids repeat across pid namespaces and hosts). */
  private readonly token = randomUUID()
  private lastBeat = 0
  private lost = false
  /** Paths the last passes read, with their stat signature before the read: the trailing re-stat. */
  private readonly restat = new TrailingRestat(TRAILING_RESTAT_MS, (again) => {
    if (this.stopped) return
    for (const p of again) this.pending.add(p)
    this.flushTimer ??= setTimeout(() => this.flush(), 0)
  })
  private readonly newDirs = new NewDirs(() => this.rescanNewDirs())
  /** Watches for lost watcher events (lost-events.ts): a stall, a burst, an error, a folder too big to list. */
  private lostEvents: LostEvents | null = null
  /** The folder sweep's step (set once the watcher is ready). */
  private sweepFolders: (() => void) | null = null

  constructor(
    private readonly store: Store,
    private readonly ingester: Ingester,
    private readonly opts: LiveOptions,
  ) {
    // A long catch-up (a first index of a big home) beats the lease's heart as it goes, every quarter
    // interval (a step between two calls can take seconds on a loaded machine), so no second ingester
    // takes over; every write transaction first checks the lease is ours, so a taken one writes no more.
    ingester.progress = () => {
      if (this.stopped) throw new LeaseLostError('stopped')
      if (Date.now() - this.lastBeat >= HEARTBEAT_MS / 4) this.beat()
    }

    ingester.writeGuard = () => {
      if (this.lost || !this.store.holdsLease(this.opts.leaseName, process.pid, this.token)) {
        this.loseLease()
        throw new LeaseLostError('another ingester holds the lease')
      }
    }
  }

  /** One heartbeat; a lease no longer ours stops this ingester. */
  private beat(): void {
    this.lastBeat = Date.now()
    const ok = this.store.heartbeatLease(this.opts.leaseName, process.pid, Date.now(), this.info(), this.token)
    if (!ok) this.loseLease()
  }

  private loseLease(): void {
    if (this.lost) return
    this.lost = true
    const cur = this.store.getLease(this.opts.leaseName)
    this.opts.log?.(`lost the ingester lease${cur ? ` to pid ${cur.pid} on ${cur.host}` : ''}; stopped ingesting`)
    this.halt()
    this.opts.onLost?.()
  }

  /** Stop every timer and the watcher (without releasing a lease that is no longer ours). */
  private halt(): void {
    this.stopped = true
    this.onStop?.()
    if (this.flushTimer) clearTimeout(this.flushTimer)
    if (this.timeTimer) clearTimeout(this.timeTimer)
    this.restat.stop()
    for (const t of this.intervals) clearInterval(t)
    this.lostEvents?.stop()
    void this.watcher?.close().catch(() => {})
  }

  /** This ingester lost its lease to another (it has stopped). */
  get leaseLost(): boolean {
    return this.lost
  }

  /** Take the lease (returns false when another live ingester holds it). */
  tryAcquire(isStale: Parameters<Store['acquireLease']>[3]): boolean {
    const ok = this.store.acquireLease(this.opts.leaseName, {host: hostname(), pid: process.pid}, Date.now(), isStale, this.info())
    if (ok) this.lastBeat = Date.now()
    return ok
  }

  private info(): Record<string, unknown> {
    return {
      token: this.token,
      files: this.watched,
      passes: this.passes,
      ready: this.ready,
      roots: this.ingester.roots().map((r) => r.root),
    }
  }

  async start(): Promise<void> {
    this.catchUp()
    await this.watch()
  }

  /** Catch up on whatever changed while nobody watched (one pass; `cast daemon --once` is this alone). */
  catchUp(): ReturnType<Ingester['sync']> | null {
    if (this.stopped) return null
    let first: ReturnType<Ingester['sync']>
    try {
      first = this.ingester.sync()
    } catch (error) {
      // Taken over mid-way: what was committed is consistent; this ingester stops here.
      if (error instanceof LeaseLostError || this.lost) return null
      throw error
    }

    this.watched = first.files
    this.passes++
    screenSweepOf(this.ingester)?.() // terminal fallback: one tmux sweep (screen.ts)
    this.opts.onExtra?.()
    this.opts.onChange?.()
    this.pokeSettle()
    return first
  }

  private pokeSettle(): void {
    this.opts.settle?.poke(() => this.opts.onChange?.())
  }

  /** Watch the roots and the spool; resolves once the watcher is ready (and caught up again). */
  async watch(): Promise<void> {
    if (this.stopped) return
    const roots = this.ingester.roots().map((r) => r.root)
    const existing = roots.filter((r) => fs.existsSync(r))
    const missing = new Set(roots.filter((r) => !fs.existsSync(r)))
    const extra = new Set((this.opts.extraDirs ?? []).map((d) => path.resolve(d)))
    // The spool must exist to be watched; the hook command also creates it on first use.
    for (const d of extra) fs.mkdirSync(d, {mode: 0o700, recursive: true})
    const w = await openWatcher([...existing, ...extra])
    const onEvent = (p: string): void => {
      if (this.stopped) return
      // A SQLite source changes through its -wal file: the database is what to read.
      if (p.endsWith('-wal')) p = p.slice(0, -'-wal'.length)
      for (const d of extra) {
        if (p === d || p.startsWith(d + path.sep)) {
          if (!this.guard('spool', () => this.opts.onExtra?.())) this.retryLater()
          this.guard('notify', () => this.opts.onChange?.())
          this.pokeSettle()
          return
        }
      }

      this.pending.add(p)
      this.flushTimer ??= setTimeout(() => this.flush(), this.opts.debounceMs ?? 15)
    }

    w.on('add', onEvent)
      .on('change', onEvent)
      .on('addDir', (d: string) => !this.stopped && this.newDirs.add(d, Date.now(), extra))
      .on('unlink', (p: string) => {
        if (this.stopped) return
        // A vanished file (a registry deleted on clean exit): a full pass forgets it.
        this.pending.add(p)
        this.flushTimer ??= setTimeout(() => this.flush(true), this.opts.debounceMs ?? 15)
      })
    const lost = (this.lostEvents = new LostEvents((why) => this.rescanAll(why), Date.now()))
    w.on('raw', () => lost.event())
    w.on('error', (e: unknown) => {
      this.opts.log?.(`watch error: ${(e as Error).message}`)
      lost.suspect(`watch error: ${(e as Error).message}`, Date.now())
    })
    this.watcher = w
    // The heart beats during the watcher's scan (on a big home it outlasts the lease's staleness), and now.
    const beat = (): void => void (this.stopped || this.guard('heartbeat', () => this.beat()))
    beat()
    this.intervals.push(setInterval(beat, HEARTBEAT_MS))
    // Events before the watcher is ready can be missed: wait for it, then catch up once more.
    await new Promise<void>((resolve) => {
      w.once('ready', () => resolve())
      this.onStop = resolve
    })
    if (this.stopped) return
    if (!this.guard('spool', () => this.opts.onExtra?.())) this.retry = true
    this.flush(true)
    this.ready = true
    this.guard('heartbeat', () => this.beat())
    if (this.stopped) return
    this.startTimers(w, missing)
    const folders = new FolderSweep(existing) // folders whose listing moved without an event: watched and rescanned
    this.sweepFolders = () => folders.sweep(this.stopped).forEach((d) => (w.add(d), this.newDirs.add(d, Date.now(), extra)))
    this.intervals.push(setInterval(() => this.guard('folder sweep', () => this.sweepFolders?.()), FOLDER_SWEEP_MS))
    for (const t of this.intervals) t.unref()
    this.armTimeTimer()
  }

  /** The periodic steps: the pid re-check (and roots that appeared), the heartbeat, the stat sweep, the screen sweep. */
  private startTimers(w: {add(p: string): void}, missing: Set<string>): void {
    this.intervals.push(
      setInterval(() => {
        if (this.stopped) return
        this.lostEvents?.tick(Date.now(), PID_RECHECK_MS)
        this.guard('process check', () => {
          const r = this.ingester.recheckProcesses()
          if (r.transitions > 0) this.opts.onChange?.()
        })
        // Roots that did not exist at start: pick them up when they appear.
        for (const m of missing) {
          if (!fs.existsSync(m)) continue
          missing.delete(m)
          w.add(m)
          this.flush(true)
        }
      }, PID_RECHECK_MS),
      // The cheap stat sweep: files whose state can still change, compared with the store.
      setInterval(() => {
        if (this.stopped) return
        let changed = new Set<string>()
        this.guard('stat sweep', () => (changed = this.ingester.sweep()))
        this.rescanNewDirs()
        if (changed.size === 0) return
        for (const p of changed) this.pending.add(p)
        this.flushTimer ??= setTimeout(() => this.flush(), 0)
      }, STAT_SWEEP_MS),
      // Terminal fallback (screen.ts): one tmux sweep every 2 s; it starts no process without tmux and a server.
      setInterval(() => {
        if (this.stopped) return
        this.guard('screen sweep', () => {
          this.ingester.writeGuard?.()
          if ((screenSweepOf(this.ingester)?.().transitions ?? 0) > 0) this.opts.onChange?.()
        })
      }, SCREEN_SWEEP_MS),
    )
  }

  /** Files in folders that appeared lately that the watcher may have missed: read them (all, when a folder is too big to list). */
  private rescanNewDirs(): void {
    const found = this.stopped ? [] : this.newDirs.scan(Date.now())
    for (const p of found) this.pending.add(p)
    if (found.length > 0) this.flushTimer ??= setTimeout(() => this.flush(), 0)
    if (this.newDirs.takeTruncated()) this.lostEvents?.suspect('a changed folder holds more files than a listing reads', Date.now())
  }

  /** Events may have been lost: sweep the folders (new ones watched) and read everything under the roots. */
  private rescanAll(why: string): void {
    if (this.stopped) return
    this.opts.log?.(`rescanning the roots: ${why}`)
    this.guard('folder sweep', () => this.sweepFolders?.())
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.flush(true)
  }

  private flush(full = false): void {
    this.flushTimer = null
    if (this.stopped) return
    const paths = new Set(this.pending)
    this.pending.clear()
    // Stat'ed before the read: a write after this point shows in the trailing re-stat.
    if (!full) for (const p of paths) this.restat.note(p)
    // After a failed pass, the files (and hooks) it could not commit are read again in full.
    const again = this.retry
    if (again && !this.guard('spool', () => this.opts.onExtra?.())) return this.retryLater()
    const ok = this.guard('sync', () => {
      const stats = full || again ? this.ingester.sync() : this.ingester.sync(paths)
      if (full || again) this.watched = stats.files
      this.passes++
    })
    if (this.stopped) return
    if (ok) this.retry = false
    else this.retryLater()
    this.guard('notify', () => this.opts.onChange?.())
    this.pokeSettle()
    this.armTimeTimer()
    this.restat.arm()
  }

  /** Try the failed pass again in two seconds, whether or not a file changes meanwhile. */
  private retryLater(): void {
    this.retry = true
    if (this.stopped) return
    if (this.flushTimer) clearTimeout(this.flushTimer)
    this.flushTimer = setTimeout(() => this.flush(true), 2000)
  }

  /**
   * Run one part of the loop. A failure (a full disk, a read-only or locked store) must not kill
   * the ingester from a timer: it is logged once per streak, the next event or tick tries again,
   * and recovery is logged.
   */
  private guard(what: string, fn: () => void): boolean {
    if (this.lost) return false
    try {
      fn()
      if (this.failing.delete(what)) this.opts.log?.(`${what} recovered`)
      return true
    } catch (error) {
      // The lease was taken over: loseLease() has said so once and stopped everything.
      if (error instanceof LeaseLostError || this.lost) return false
      const msg = (error as Error).message
      if (this.failing.get(what) !== msg) this.opts.log?.(`${what} failed: ${msg}`)
      this.failing.set(what, msg)
      return false
    }
  }

  /** One timer, set to the earliest next_check_at of any session. */
  armTimeTimer(): void {
    if (this.stopped) return
    if (this.timeTimer) clearTimeout(this.timeTimer)
    this.timeTimer = null
    let at: number | null = null
    this.guard('timer', () => (at = this.store.nextCheckAt()))
    if (at === null) return
    const delay = Math.min(Math.max(0, at - this.opts.clock()) + 5, 2 ** 31 - 1)
    this.timeTimer = setTimeout(() => {
      this.timeTimer = null
      const ok = this.guard('time rules', () => {
        // Time rules write outside the engine's transactions: check the lease is still ours first.
        this.ingester.writeGuard?.()
        if (this.ingester.tick() > 0) this.opts.onChange?.()
      })
      // A due time that failed stays due: try again in a second, not in a tight loop.
      if (ok) this.armTimeTimer()
      else if (!this.stopped) this.timeTimer = setTimeout(() => this.armTimeTimer(), 1000)
    }, delay)
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.onStop?.()
    await this.opts.settle?.stop()
    if (this.flushTimer) clearTimeout(this.flushTimer)
    if (this.timeTimer) clearTimeout(this.timeTimer)
    this.restat.stop()
    for (const t of this.intervals) clearInterval(t)
    this.lostEvents?.stop()
    // Never let a watcher that will not close hold up an exit.
    await Promise.race([this.watcher?.close(), new Promise((r) => setTimeout(r, 1000).unref())])
    try {
      if (!this.lost) this.store.releaseLease(this.opts.leaseName, process.pid, this.token)
    } catch {
      // the store may already be closed
    }
  }
}
