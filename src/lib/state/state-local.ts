/**
 * `cast state`'s fast path in the caller's own process (src/lib/state/state-fast.ts decides when):
 * it opens the store, finds the session (src/lib/state/state-declare.ts) and declares. A live
 * ingester keeps the store current; without one, that session's own files are synced when their
 * marks changed (src/lib/ingest/ingest.ts syncOneSession), not the whole history. False: not
 * answered (a session not found, ambiguous, an error to report), and oclif runs the command.
 *
 * scripts/bundle-fast.mjs bundles it into dist/lib/state/state-local.bundle.js, loaded only when the
 * daemon's socket did not answer: better-sqlite3 loads here, never in state-fast.ts.
 */
import fs from 'node:fs'
import path from 'node:path'

import {CALLER_VARIABLES, type Caller, declare, declaredText, findOwn, type Found} from './state-declare.js'
import type {StateArgs} from './state-args.js'
import {HOLDING_AGENTS} from '../../adapters/session-variables.js'
import {sameStat} from '../../core/ingest/same-stat.js'
import {Store} from '../../core/store/store.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import {setDeclaredMark} from '../ingest/turn-marks.js'
import {castHome, clockFrom, deviceName, whoAmI} from '../home/env.js'
import {INGESTER_LEASE, leaseIsLive} from '../ingest/lease.js'

export async function localState(args: StateArgs, env: NodeJS.ProcessEnv, requestId?: string): Promise<boolean> {
  const home = castHome(env)
  let store: Store
  try {
    store = new Store(home)
  } catch {
    return false
  }

  try {
    const live = leaseIsLive(store.getLease(INGESTER_LEASE))
    const vars = Object.fromEntries(CALLER_VARIABLES.map((k) => [k, env[k]]))
    const caller: Caller = {device: deviceName(), ppid: process.ppid, requestId, vars}
    const found = findOwn(store, args.session, caller, live)
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
    declare(store, found, args, caller, now)
    // Declared: from here on an error is reported, never handed to oclif (which would declare again).
    try {
      const text = await declaredText(store, found, args, now, () => whoAmI(env))
      setDeclaredMark(env, found.agent, found.nativeId, args.status !== 'working')
      out(text)
    } catch (error) {
      process.stderr.write(`cast: the state was declared, but printing it failed: ${(error as Error).message}\n`)
      process.exitCode = 1
    }

    return true
  } finally {
    store.close()
  }
}

/**
 * Write to fd 1 directly: process.stdout would load the stream and tty modules for one line. A
 * descriptor that would block (a non-blocking pipe someone handed us, full) goes through the stream.
 */
export function out(text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let done = 0
  try {
    while (done < bytes.length) done += fs.writeSync(1, bytes, done)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error
    process.stdout.write(bytes.subarray(done))
  }
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
