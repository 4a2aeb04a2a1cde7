/**
 * Wiring between commands and the ingest engine: build an Ingester over every adapter, and the
 * one-shot incremental sync `cast sessions` does when no ingester holds the lease.
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import {fileURLToPath} from 'node:url'

import {registry} from '../../adapters/index.js'
import {screenMatcher} from '../../adapters/screen.js'
import type {AdapterEnv} from '../../core/ingest/adapter.js'
import type {Agent} from '../../core/model/types.js'
import {Ingester, type SyncStats} from '../../core/ingest/engine.js'
import {consumeSpool} from '../../core/ingest/spool.js'
import {attachScreenSweep, readScreenOverrides, screenSweepOf, sweepScreens} from '../../core/ingest/screen.js'
import {sandboxedView} from '../../core/ingest/process-table.js'
import type {WalkedPass} from '../../core/ingest/stat-pass.js'
import {sessionsWithRecords} from '../../core/store/recent-first.js'
import type {Store} from '../../core/store/store.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import {configPath} from '../home/config.js'
import {castHome, deviceName, type Env, homeDir} from '../home/env.js'
import {BACKFILL_LEASE, INGESTER_LEASE, leaseIsLive} from './lease.js'

/** Commands reach the adapters only through this module (docs/contract.md §2: never directly): the registry. */
export {registry} from '../../adapters/index.js'
export {SCREEN_KINDS, screenMatcher} from '../../adapters/screen.js'

export {BACKFILL_LEASE, INGESTER_LEASE, LEASE_STALE_MS, leaseIsLive} from './lease.js'
/**
 * A recent-first pass leaves old files unread only when they hold at least this many bytes: below
 * it reading them all costs less than a second process (a small history reads as before).
 */
export const DEFER_MIN_BYTES = 16 * 1024 * 1024
/** A progress line on stderr once a waited-for pass has taken this long. */
const PROGRESS_AFTER_MS = 1000

export function adapterEnv(env: Env): AdapterEnv {
  return {env, home: homeDir(env)}
}

export function makeIngester(store: Store, env: Env, clock: () => number, me: string): Ingester {
  const adapters = registry().adapters
  const ingester = new Ingester(store, adapters, adapterEnv(env), {clock, device: deviceName(), me})
  // Terminal fallback (src/core/ingest/screen.ts): the tmux sweep this ingester runs.
  let matcher: ReturnType<typeof screenMatcher> | undefined
  // Off under CAST_NOW, a test clock: the live process table says nothing about a made-up time.
  const scanAgents = env.CAST_NOW ? new Set<Agent>() : new Set(adapters.filter((a) => a.processScan).map((a) => a.agent))
  const bornAgents = new Set(adapters.filter((a) => a.sessionAtStart).map((a) => a.agent))
  attachScreenSweep(ingester, () =>
    sweepScreens(store, ingester, (matcher ??= screenMatcher(readScreenOverrides(configPath(env)))), {bornAgents, clock, env, scanAgents}),
  )
  return ingester
}

export interface SyncBeforeReadOptions {
  /**
   * Recent first: parse the files that can be in the inbox (modified inside
   * this window, or of a session with cast's own records), answer, and leave the other files to
   * a background pass (backfill.ts) started here when no daemon runs.
   */
  readonly recentFirst?: {readonly recencyMs: number}
  /** Where a progress line goes when the pass takes more than a second (`--all` waits). */
  readonly progress?: (line: string, final: boolean) => void
  /** The full pass quick-sync.ts walked just now over the path rules: the sync reads from it. */
  readonly walked?: WalkedPass
}

/**
 * Bring the store up to date before reading it: when no live ingester holds the lease, run one
 * incremental sync in-process. Either way, reconcile the sessions whose time rules came due.
 */
export function syncBeforeRead(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  options: SyncBeforeReadOptions = {},
): SyncStats | null {
  let stats: SyncStats | null = null
  if (!leaseIsLive(store.getLease(INGESTER_LEASE))) {
    const ingester = makeIngester(store, env, clock, me)
    const started = Date.now()
    let shown = false
    if (options.progress) {
      const say = options.progress
      let last = 0
      ingester.readProgress = (done, total, bytes) => {
        const t = Date.now()
        if (t - started < PROGRESS_AFTER_MS || t - last < 1000) return
        last = t
        shown = true
        say(
          `cast: reading agent history: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} files, ${Math.round(bytes / 2 ** 20)} MB`,
          false,
        )
      }
    }

    const defer = options.recentFirst
      ? {keep: sessionsWithRecords(store), minBytes: DEFER_MIN_BYTES, olderThan: clock() - options.recentFirst.recencyMs}
      : undefined
    // Inside an agent's sandbox no host process is in sight: every claim would read dead, so the
    // stored claims are not re-checked from here (a reader on the host does that).
    stats = ingester.sync(undefined, {defer, recheck: sandboxedView() === null, walked: options.walked})
    if (shown)
      options.progress?.(
        `cast: read ${stats.read.toLocaleString('en-US')} files, ${Math.round(stats.bytes / 2 ** 20)} MB in ${((Date.now() - started) / 1000).toFixed(1)} s`,
        true,
      )
    consumeSpool(store, ingester, castHome(env), clock)
    screenSweepOf(ingester)?.() // terminal fallback: one tmux sweep
    if (stats.deferred > 0) startBackfill(store, env)
  }

  // Snoozes that came due wake, and time rules that came due are re-checked (as a sweep does).
  sweepSnoozes(store, clock())
  return stats
}

/**
 * The sync a command that concerns one known session needs when no live ingester keeps the store
 * (`cast state`'s fast path, src/lib/state/state-fast.ts): that session's own files read where they
 * changed, the hook spool consumed, snoozes that came due woken. Other sessions wait for the next
 * full sync.
 */
export function syncOneSession(store: Store, env: Env, clock: () => number, me: string, session: {agent: string; nativeId: string}): void {
  const ingester = makeIngester(store, env, clock, me)
  const paths = new Set(store.filesFor(session.agent, session.nativeId).flatMap((f) => (f.path.includes('://') ? [] : [f.path])))
  if (paths.size > 0) ingester.sync(paths)
  consumeSpool(store, ingester, castHome(env), clock)
  sweepSnoozes(store, clock())
}

/** Is a background pass (backfill.ts) reading the older files now? */
export function backfillRunning(store: Store): boolean {
  return leaseIsLive(store.getLease(BACKFILL_LEASE))
}

/**
 * Start the background pass that reads the files a recent-first sync left, detached so it
 * outlives the command (unless one runs already). It takes BACKFILL_LEASE itself.
 */
function startBackfill(store: Store, env: Env): void {
  if (backfillRunning(store)) return
  const entry = fileURLToPath(new URL('backfill.js', import.meta.url))
  if (!fs.existsSync(entry)) return // the .ts sources under test: the next full sync reads them
  try {
    const child = spawn(process.execPath, [entry], {detached: true, env, stdio: 'ignore'})
    child.on('error', () => {})
    child.unref()
  } catch {
    // no second process: the next full sync (`--all`, the daemon) reads them
  }
}
