/**
 * `cast send --queue`: a message held until the session's current turn ends, then typed in as
 * its next turn by the same function as `cast send` (src/lib/agents/deliver.ts sendMessage: the typist,
 * the foreground and dialog checks). Held messages are files in CAST_HOME/queued/ (folder 0700,
 * files 0600), one per message, named so that a listing sorts them oldest first. Whoever holds
 * the ingester lease delivers them (`cast daemon` every second, `cast web` on each change it
 * ingests): one message per session per pass, so a second one waits for the turn the first
 * starts to end. A file is claimed by renaming it before anything is typed (two sweepers never
 * send one twice); a send that is refused goes to queued/failed/ with its reason.
 */
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

import type {SessionRow, Store} from '../../core/store/store.js'
import {loadConfig} from '../home/config.js'
import {sendMessage} from './deliver.js'
import {castHome, type Env} from '../home/env.js'

export interface QueuedMessage {
  readonly id: string
  readonly session_id: string
  readonly message: string
  /** Who queued it: the send is recorded as theirs. */
  readonly by: string
  readonly at: string
}

export interface QueuedDelivery {
  readonly id: string
  readonly session_id: string
  readonly ok: boolean
  readonly via: string | null
  readonly error: string | null
}

export const queueDir = (home: string): string => path.join(home, 'queued')

/**
 * Whether a message must wait: the agent is in a turn (working) or an open dialog (a permission
 * prompt or a question) holds its terminal. Anything else is the end of a turn: send now.
 */
export function holdsMessage(row: Pick<SessionRow, 'state' | 'reason'>): boolean {
  return row.state === 'working' || (row.state === 'needs_input' && (row.reason === 'approval' || row.reason === 'question'))
}

/** Hold `message` for the session; returns what was stored. */
export function queueMessage(env: Env, sessionId: string, message: string, by: string, now: number): QueuedMessage {
  const dir = queueDir(castHome(env))
  fs.mkdirSync(dir, {mode: 0o700, recursive: true})
  const id = `q${crypto.randomBytes(4).toString('hex')}`
  const entry: QueuedMessage = {at: new Date(now).toISOString(), by, id, message, session_id: sessionId}
  const name = `${String(now).padStart(15, '0')}-${id}.json`
  const tmp = path.join(dir, `.${name}.tmp`)
  fs.writeFileSync(tmp, JSON.stringify(entry), {mode: 0o600})
  fs.renameSync(tmp, path.join(dir, name))
  return entry
}

function pending(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => /^\d{15}-q[0-9a-f]{8}\.json$/.test(f))
      .sort()
  } catch {
    return []
  }
}

function read(file: string): QueuedMessage | null {
  try {
    const e = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<QueuedMessage>
    if (typeof e.session_id !== 'string' || typeof e.message !== 'string' || typeof e.by !== 'string' || typeof e.id !== 'string')
      return null
    return e as QueuedMessage
  } catch {
    return null
  }
}

/** Deliver the held messages whose session's turn has ended (the ingester lease's holder calls this). */
export async function deliverQueued(store: Store, env: Env, clock: () => number): Promise<QueuedDelivery[]> {
  const dir = queueDir(castHome(env))
  const files = pending(dir)
  if (files.length === 0) return []
  const config = await loadConfig(env)
  const out: QueuedDelivery[] = []
  const seen = new Set<string>()
  for (const f of files) {
    const file = path.join(dir, f)
    const e = read(file)
    if (!e) {
      park(dir, f, 'not a queued message')
      continue
    }

    if (seen.has(e.session_id)) continue
    seen.add(e.session_id)
    const row = store.loadSessions([e.session_id])[0]
    if (row && holdsMessage(row)) continue
    const claimed = `${file}.${process.pid}.claimed`
    try {
      fs.renameSync(file, claimed)
    } catch {
      continue // another sweeper took it
    }

    try {
      const r = await sendMessage(store, env, clock, e.by, e.session_id, e.message, {
        cause: `queued ${e.id}`,
        config,
        synced: true,
        who: e.by,
      })
      fs.rmSync(claimed, {force: true})
      out.push({error: null, id: e.id, ok: true, session_id: e.session_id, via: r.via})
    } catch (error) {
      const why = (error as Error).message
      park(dir, path.basename(claimed), why, e)
      out.push({error: why, id: e.id, ok: false, session_id: e.session_id, via: null})
    }
  }

  return out
}

/** A held or failed message as `cast queued` lists it; `error` is set only for a failed one. */
export interface QueuedEntry extends QueuedMessage {
  readonly error: string | null
}

/**
 * What waits and what failed, oldest first. A file that does not parse as a queued message is
 * counted in `unreadable`, never shown.
 */
export function listQueued(env: Env): {failed: QueuedEntry[]; held: QueuedEntry[]; unreadable: number} {
  const dir = queueDir(castHome(env))
  let unreadable = 0
  const take = (folder: string, names: string[], failed: boolean): QueuedEntry[] =>
    names.flatMap((f) => {
      const e = read(path.join(folder, f))
      if (!e) {
        unreadable++
        return []
      }

      const error = failed ? String((e as Partial<QueuedEntry>).error ?? 'not delivered') : null
      return [{at: String(e.at ?? ''), by: e.by, error, id: e.id, message: e.message, session_id: e.session_id}]
    })
  const held = take(dir, pending(dir), false)
  const failedDir = path.join(dir, 'failed')
  const failed = take(failedDir, pending(failedDir), true)
  return {failed, held, unreadable}
}

/**
 * Remove a held (or failed) message by its id; false when no such message waits. A held message
 * already claimed by a sweeper (renamed before typing) is no longer in the queue: it cannot be
 * withdrawn, and this says so by returning false.
 */
export function dropQueued(env: Env, id: string): boolean {
  const dir = queueDir(castHome(env))
  if (!/^q[0-9a-f]{8}$/.test(id)) return false
  for (const folder of [dir, path.join(dir, 'failed')]) {
    const f = pending(folder).find((name) => name.endsWith(`-${id}.json`))
    if (!f) continue
    try {
      fs.rmSync(path.join(folder, f))
      return true
    } catch {
      return false // a sweeper claimed it between the listing and the removal
    }
  }

  return false
}

/** A message that cannot be delivered: kept in queued/failed/ with why, out of the queue. */
function park(dir: string, name: string, why: string, e?: QueuedMessage): void {
  const failed = path.join(dir, 'failed')
  fs.mkdirSync(failed, {mode: 0o700, recursive: true})
  const to = path.join(failed, name.replace(/\.\d+\.claimed$/, ''))
  try {
    if (e) fs.writeFileSync(to, JSON.stringify({...e, error: why}), {mode: 0o600})
    else fs.renameSync(path.join(dir, name), to)
    fs.rmSync(path.join(dir, name), {force: true})
  } catch {
    // a file another sweeper moved: nothing left to keep
  }
}
