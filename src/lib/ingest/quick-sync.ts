/**
 * The sync before a read (ingest.ts syncBeforeRead), loading the adapters' parsers only when
 * something needs them. First every check that sync makes, over each agent's path rules alone
 * (src/adapters/light.ts): the stat pass (stat-pass.ts), the stored process claims re-checked, the
 * hook spool looked at, and the screen sweep with the process scans, run against a recompose that
 * refuses (it rolls the sweep's transaction back). Only when a file changed or is gone, a claim
 * changed, an event waits or the sweep would recompose a session does it load the ingest wiring
 * (ingest.ts, every adapter) and run that sync from its start, reading from the pass walked here:
 * the answer is the one syncBeforeRead gives, and a sync that finds nothing to do never loads a
 * parser.
 */
import {LIGHT_MODULES, registryReplaced} from '../../adapters/light.js'
import {screenMatcher} from '../../adapters/screen-match.js'
import type {AdapterEnv} from '../../core/ingest/adapter.js'
import type {SyncStats} from '../../core/ingest/engine.js'
import {openFilesOf, sandboxedView} from '../../core/ingest/process-table.js'
import {claimsChanged} from '../../core/ingest/recompose.js'
import {readScreenOverrides, sweepScreens} from '../../core/ingest/screen.js'
import {spoolWaiting} from '../../core/ingest/spool.js'
import {statPass, type WalkedPass} from '../../core/ingest/stat-pass.js'
import {RECENT_MS, sweepOne} from '../../core/ingest/stat-sweep.js'
import type {SweepHost} from '../../core/ingest/unwritten-runs.js'
import type {Agent} from '../../core/model/types.js'
import type {FileRow, Store} from '../../core/store/store.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import {configPath} from '../home/config.js'
import {castHome, type Env, homeDir} from '../home/env.js'
import type {SyncBeforeReadOptions} from './ingest.js'
import {INGESTER_LEASE, leaseIsLive} from './lease.js'

/** Thrown by the refusing recompose: the sweep wants to change a session. */
class NeedsAdapters extends Error {}

/**
 * syncBeforeRead's answer, the adapters loaded only when the store is not current (see above).
 * `CAST_LOAD_PROBE`-style checks in test/lib/quick-sync.test.ts hold it to that.
 */
export async function syncBeforeReadQuick(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  options: SyncBeforeReadOptions = {},
): Promise<SyncStats | null> {
  if (leaseIsLive(store.getLease(INGESTER_LEASE))) {
    // As syncBeforeRead: a live ingester keeps the store; only the time rules come due here.
    sweepSnoozes(store, clock())
    return null
  }

  const t0 = performance.now()
  const found = registryReplaced() ? {walked: undefined} : look(store, env, clock)
  // The adapters are needed: the sync reads from the pass walked here (not walked again).
  if ('walked' in found) return (await import('./ingest.js')).syncBeforeRead(store, env, clock, me, {...options, walked: found.walked})
  const {files} = found
  sweepSnoozes(store, clock())
  // What Ingester.sync reports for a pass that read nothing.
  return {
    bytes: 0,
    deferred: 0,
    deferredBytes: 0,
    files,
    lines: 0,
    ms: performance.now() - t0,
    parseErrors: 0,
    read: 0,
    sessionsChanged: 0,
    transitions: 0,
  }
}

/**
 * Every step of syncBeforeRead's sync, in its order, stopping at the first that would change the
 * store: the number of files the walk matched when none would, else the walked pass.
 */
function look(store: Store, env: Env, clock: () => number): {readonly files: number} | {readonly walked: WalkedPass | undefined} {
  const rules = LIGHT_MODULES.map((m) => m.rules)
  const ctx: AdapterEnv = {env, home: homeDir(env)}
  // Ingester.sync: the holders, then the walk compared with the marks (engine.ts fullPass).
  const names = rules.flatMap((a) => a.openFileProcesses ?? [])
  const holders = names.length > 0 ? openFilesOf(names) : new Map<string, number>()
  const pass = statPass(store, rules, ctx, holders, null, Date.now() - RECENT_MS)
  const changed = {walked: {holders, pass}}
  // What the pass keeps may still read as nothing: a SQLite source is never skipped on its stat
  // alone, and whole-read.ts reads it only when its mark, the -wal file's included, moved.
  const now = Date.now()
  if (pass.found.some((d) => !sameSqlite(d.path, d.match.kind, pass.known.get(d.path), now))) return changed
  const agents = new Set<string>(rules.map((a) => a.agent))
  if (pass.gone.some((row) => agents.has(row.agent) && !row.path.includes('://'))) return changed
  // Its re-check of the stored process claims (syncBeforeRead: not from inside a sandbox).
  if (sandboxedView() === null && claimsChanged(store, store.sessionsWithProcessClaims()).length > 0) return changed
  // consumeSpool.
  if (spoolWaiting(castHome(env))) return changed
  // The screen sweep as makeIngester wires it (ingest.ts), with a recompose that refuses.
  let wants = false
  const host: SweepHost = {
    adapters: rules,
    ctx,
    recompose() {
      wants = true
      throw new NeedsAdapters('a session changes: the sync needs the adapters')
    },
  }
  // Off under CAST_NOW, a test clock: the live process table says nothing about a made-up time.
  const scanAgents = env.CAST_NOW ? new Set<Agent>() : new Set(rules.filter((a) => a.processScan).map((a) => a.agent))
  const bornAgents = new Set(rules.filter((a) => a.sessionAtStart).map((a) => a.agent))
  const matcher = screenMatcher(
    readScreenOverrides(configPath(env)),
    LIGHT_MODULES.map((m) => m.screen),
  )
  sweepScreens(store, host, matcher, {bornAgents, clock, env, scanAgents})
  return wants ? changed : {files: pass.files}
}

/** A SQLite source whose mark (device, inode, size and mtime with its -wal file) equals the stored row's. */
function sameSqlite(path: string, kind: string, row: FileRow | undefined, now: number): boolean {
  if (kind !== 'sqlite' || row?.kind !== 'sqlite') return false
  const verdict = sweepOne(path, row, now)
  return verdict === 'keep' || verdict === 'forget'
}
