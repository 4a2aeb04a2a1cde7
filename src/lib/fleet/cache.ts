/**
 * Each host's last good listing, kept under `$CAST_HOME/fleet/NAME.json` (0600) so a host that
 * stops answering still shows what it last said, marked stale with the time it was fetched.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {SessionJson} from '../../core/model/wire.js'
import {castHome, type Env} from '../home/env.js'

export interface CachedListing {
  /** When the host last answered (epoch ms, this machine's clock). */
  readonly at: number
  readonly sessions: readonly SessionJson[]
  /** When the host first failed to answer since it last did (epoch ms), or null. */
  readonly downSince?: number | null
}

function file(env: Env, name: string): string {
  return path.join(castHome(env), 'fleet', `${name}.json`)
}

export function readCache(env: Env, name: string): CachedListing | null {
  try {
    const raw = JSON.parse(fs.readFileSync(file(env, name), 'utf8')) as CachedListing
    return typeof raw.at === 'number' && Array.isArray(raw.sessions) ? raw : null
  } catch {
    return null
  }
}

export function writeCache(env: Env, name: string, c: CachedListing): void {
  try {
    const f = file(env, name)
    fs.mkdirSync(path.dirname(f), {mode: 0o700, recursive: true})
    const tmp = `${f}.${process.pid}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(c), {mode: 0o600})
    fs.renameSync(tmp, f)
  } catch {
    // a read-only CAST_HOME: the listing still shows, only the next stale answer lacks it
  }
}

export function dropCache(env: Env, name: string): void {
  fs.rmSync(file(env, name), {force: true})
}
