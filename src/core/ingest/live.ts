/**
 * The live ingester: holds the lease, watches the adapters' roots with chokidar (events
 * coalesced per file), consumes the hook spool, re-checks known pids every second, and wakes
 * once at the earliest next_check_at for time-based changes. No per-session polling.
 */
import fs from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'

import type {Store} from '../store/store.js'
import type {Ingester} from './engine.js'
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
}

export const PID_RECHECK_MS = 1000
export const HEARTBEAT_MS = 2000

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

  constructor(
    private readonly store: Store,
    private readonly ingester: Ingester,
    private readonly opts: LiveOptions,
  ) {}

  /** Take the lease (returns false when another live ingester holds it). */
  tryAcquire(isStale: Parameters<Store['acquireLease']>[3]): boolean {
    return this.store.acquireLease(this.opts.leaseName, {host: hostname(), pid: process.pid}, Date.now(), isStale, this.info())
  }

  private info(): Record<string, unknown> {
    return {
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

  /** Catch up on whatever changed while nobody watched. */
  catchUp(): void {
    const first = this.ingester.sync()
    this.watched = first.files
    this.passes++
    screenSweepOf(this.ingester)?.() // terminal fallback: one tmux sweep (screen.ts)
    this.opts.onExtra?.()
    this.opts.onChange?.()
  }

  /** Watch the roots and the spool; resolves once the watcher is ready (and caught up again). */
  async watch(): Promise<void> {
    const {watch} = await import('chokidar')
    const roots = this.ingester.roots().map((r) => r.root)
    const existing = roots.filter((r) => fs.existsSync(r))
    const missing = new Set(roots.filter((r) => !fs.existsSync(r)))
    const extra = new Set((this.opts.extraDirs ?? []).map((d) => path.resolve(d)))
    // The spool must exist to be watched; the hook command also creates it on first use.
    for (const d of extra) fs.mkdirSync(d, {mode: 0o700, recursive: true})
    const w = watch([...existing, ...extra], {
      awaitWriteFinish: false,
      ignoreInitial: true,
      ignored: (p: string) => /[\\/](tool-results|file-history|node_modules|\.git)([\\/]|$)/.test(p),
      persistent: true,
    })
    const onEvent = (p: string): void => {
      if (this.stopped) return
      // A SQLite source changes through its -wal file: the database is what to read.
      if (p.endsWith('-wal')) p = p.slice(0, -'-wal'.length)
      for (const d of extra) {
        if (p === d || p.startsWith(d + path.sep)) {
          if (!this.guard('spool', () => this.opts.onExtra?.())) this.retryLater()
          this.guard('notify', () => this.opts.onChange?.())
          return
        }
      }

      this.pending.add(p)
      this.flushTimer ??= setTimeout(() => this.flush(), this.opts.debounceMs ?? 15)
    }

    w.on('add', onEvent).on('change', onEvent).on('unlink', (p: string) => {
      if (this.stopped) return
      // A vanished file (a registry deleted on clean exit): a full pass forgets it.
      this.pending.add(p)
      this.flushTimer ??= setTimeout(() => this.flush(true), this.opts.debounceMs ?? 15)
    })
    w.on('error', (e: unknown) => this.opts.log?.(`watch error: ${(e as Error).message}`))
    this.watcher = w
    // Events before the watcher is ready can be missed: wait for it, then catch up once more.
    await new Promise<void>((resolve) => {
      w.once('ready', () => resolve())
      this.onStop = resolve
    })
    if (this.stopped) return
    if (!this.guard('spool', () => this.opts.onExtra?.())) this.retry = true
    this.flush(true)
    this.ready = true
    this.guard('heartbeat', () => this.store.heartbeatLease(this.opts.leaseName, process.pid, Date.now(), this.info()))
    this.intervals.push(
      setInterval(() => {
        if (this.stopped) return
        this.guard('process check', () => {
          const r = this.ingester.recheckProcesses()
          if (r.transitions > 0) this.opts.onChange?.()
        })
        // Roots that did not exist at start: pick them up when they appear.
        for (const m of missing) {
          if (!fs.existsSync(m)) continue
          missing.delete(m)
          ;(w as unknown as {add(p: string): void}).add(m)
          this.flush(true)
        }
      }, PID_RECHECK_MS),
      setInterval(() => {
        if (this.stopped) return
        this.guard('heartbeat', () => {
          const ok = this.store.heartbeatLease(this.opts.leaseName, process.pid, Date.now(), this.info())
          if (!ok) this.opts.log?.('lost the ingester lease')
        })
      }, HEARTBEAT_MS),
      // Terminal fallback (screen.ts): one tmux sweep every 2 s; it starts no process without tmux and a server.
      setInterval(() => {
        if (this.stopped) return
        this.guard('screen sweep', () => {
          if ((screenSweepOf(this.ingester)?.().transitions ?? 0) > 0) this.opts.onChange?.()
        })
      }, SCREEN_SWEEP_MS),
    )
    for (const t of this.intervals) t.unref()
    this.armTimeTimer()
  }

  private flush(full = false): void {
    this.flushTimer = null
    if (this.stopped) return
    const paths = new Set(this.pending)
    this.pending.clear()
    // After a failed pass, the files (and hooks) it could not commit are read again in full.
    const again = this.retry
    if (again && !this.guard('spool', () => this.opts.onExtra?.())) return this.retryLater()
    const ok = this.guard('sync', () => {
      const stats = full || again ? this.ingester.sync() : this.ingester.sync(paths)
      if (full || again) this.watched = stats.files
      this.passes++
    })
    if (ok) this.retry = false
    else this.retryLater()
    this.guard('notify', () => this.opts.onChange?.())
    this.armTimeTimer()
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
    try {
      fn()
      if (this.failing.delete(what)) this.opts.log?.(`${what} recovered`)
      return true
    } catch (error) {
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
    if (this.flushTimer) clearTimeout(this.flushTimer)
    if (this.timeTimer) clearTimeout(this.timeTimer)
    for (const t of this.intervals) clearInterval(t)
    // Never let a watcher that will not close hold up an exit.
    await Promise.race([this.watcher?.close(), new Promise((r) => setTimeout(r, 1000).unref())])
    try {
      this.store.releaseLease(this.opts.leaseName, process.pid)
    } catch {
      // the store may already be closed
    }
  }
}
