/**
 * Setup file (vitest.config.ts `setupFiles`): a heavy test file (heavy-files.ts) holds a lock
 * shared by every worker of the run while it runs, so two heavy files never run at once even
 * when a file takes longer than the sequencer planned (a loaded machine). The lock is a
 * directory under the system temp folder, named after the checkout, holding the holder's pid; a
 * lock whose holder is gone is taken over. Light files do nothing here.
 */
import {createHash} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll} from 'vitest'

import {HEAVY_FILES} from './heavy-files.js'

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..')
const LOCK = path.join(os.tmpdir(), `cast-vitest-heavy-${createHash('sha1').update(ROOT).digest('hex').slice(0, 12)}`)
/** Longer than any heavy file takes on a loaded machine: waiting is the point. */
const WAIT_BOUND_MS = 900_000

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function tryLock(): boolean {
  try {
    fs.mkdirSync(LOCK)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    let holder = Number.NaN
    try {
      holder = Number(fs.readFileSync(path.join(LOCK, 'pid'), 'utf8'))
    } catch {
      // being written, or being removed: try again shortly
      return false
    }

    if (holder === process.pid) return true
    if (!Number.isInteger(holder) || alive(holder)) return false
    // The holder died without letting go (a worker killed mid-file): take it over.
    fs.rmSync(LOCK, {force: true, recursive: true})
    return false
  }

  fs.writeFileSync(path.join(LOCK, 'pid'), String(process.pid))
  return true
}

let held = false

// vitest 4 passes the fixtures first (they must be destructured) and the file's suite second.
// eslint-disable-next-line no-empty-pattern
beforeAll(async ({}, suite) => {
  const file = (suite as {file?: {filepath?: string}; filepath?: string}).file?.filepath ?? (suite as {filepath?: string}).filepath ?? ''
  const rel = path.relative(ROOT, file).split(path.sep).join('/')
  if (!HEAVY_FILES.includes(rel)) return
  while (!tryLock()) await new Promise((resolve) => setTimeout(resolve, 200))
  held = true
}, WAIT_BOUND_MS)

afterAll(() => {
  if (!held) return
  held = false
  fs.rmSync(LOCK, {force: true, recursive: true})
})
