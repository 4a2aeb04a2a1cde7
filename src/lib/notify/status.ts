/**
 * `cast status`: one short line for tmux status-right or a shell prompt ("3 need you · 1 quiet").
 * Reads the store only (the daemon keeps it current), with the lean query of
 * src/core/store/status.ts; bin/run.js runs it without loading oclif so a status bar refreshing
 * every few seconds costs next to nothing (bench/status.js measures it).
 *
 * "Need you" counts the demands of my inbox: sessions in Questions (an open question, a
 * permission prompt, a decision card) or in needs_input, not filed away (stashed, snoozed,
 * dismissed, killed) and not subagents. Quiet counts working sessions silent for 10 minutes.
 */
import {quietAt} from '../../core/model/attention.js'
import {statusLine} from '../../core/model/notify.js'
import {inInbox} from '../../core/model/ownership.js'
import {isFiledBucket} from '../../core/model/tally.js'
import type {Bucket} from '../../core/model/types.js'
import {statusRows} from '../../core/store/status.js'
import type {Store} from '../../core/store/store.js'

export interface StatusCounts {
  need: number
  questions: number
  needs_input: number
  quiet: number
  working: number
  done: number
}

const OUTLIVES = new Set(['approval', 'question', 'declared_blocked'])

export function statusCounts(store: Store, me: string, now: number, recencyMs?: number): StatusCounts {
  const c: StatusCounts = {done: 0, need: 0, needs_input: 0, questions: 0, quiet: 0, working: 0}
  for (const r of statusRows(store)) {
    const bucket = (r.bucket ?? r.state ?? 'idle') as Bucket
    if (r.parentId !== null || bucket === 'folded' || isFiledBucket(bucket) || bucket === 'hidden') continue
    const outlives = r.pinned || bucket === 'questions' || (r.state === 'needs_input' && OUTLIVES.has(r.reason ?? ''))
    if (
      !inInbox({all: outlives, lastActivityAt: r.lastActivityAt ?? r.firstSeenAt, me, now, owners: r.owners, recencyMs, runner: r.runner})
    )
      continue
    if (bucket === 'questions') c.questions++
    if (r.state === 'needs_input') c.needs_input++
    if (bucket === 'questions' || r.state === 'needs_input') c.need++
    if (r.state === 'working') {
      c.working++
      const at = quietAt({lastOutputAt: r.lastOutputAt, state: 'working', workingSince: r.workingSince})
      if (at !== null && now >= at) c.quiet++
    }

    if (r.state === 'done') c.done++
  }

  return c
}

export function renderStatus(c: StatusCounts, format?: string): string {
  return statusLine({done: c.done, needs_input: c.need, questions: c.questions, quiet: c.quiet, working: c.working}, format)
}

/**
 * The whole command without oclif, for bin/run.js: handles `cast status [--format F] [--json]`
 * and returns false for anything else (help, a bad flag), which oclif then handles.
 */
export async function fastStatus(argv: readonly string[]): Promise<boolean> {
  let format: string | undefined
  let json = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (a === '--json') json = true
    else if (a === '--format' && i + 1 < argv.length) format = argv[++i]
    else if (a.startsWith('--format=')) format = a.slice('--format='.length)
    else return false
  }

  // A template naming an unknown field: oclif's command says so (exit 2).
  if (format !== undefined) {
    const {unknownStatusFields} = await import('../../core/model/notify.js')
    if (unknownStatusFields(format).length > 0) return false
  }

  const {castHome, clockFrom, whoAmI} = await import('../env.js')
  const env = process.env
  const fs = await import('node:fs')
  const path = await import('node:path')
  const home = castHome(env)
  // No store yet: nothing needs you (and no store is created for a status bar).
  if (!fs.existsSync(path.join(home, 'cast.db'))) {
    process.stdout.write((json ? JSON.stringify({...EMPTY, line: renderStatus(EMPTY, format)}) : renderStatus(EMPTY, format)) + '\n')
    return true
  }

  const {Store} = await import('../../core/store/store.js')
  const recencyMs = await fastRecency(env, home)
  const store = new Store(home, {readonly: true})
  try {
    const c = statusCounts(store, whoAmI(env), clockFrom(env)(), recencyMs)
    const line = renderStatus(c, format)
    process.stdout.write((json ? JSON.stringify({...c, line}) : line) + '\n')
  } finally {
    store.close()
  }

  return true
}

const EMPTY: StatusCounts = {done: 0, need: 0, needs_input: 0, questions: 0, quiet: 0, working: 0}

/**
 * inbox.recency from the config file without loading the config module (it pulls in oclif, which
 * alone costs more than the budget). A file that does not parse is left to oclif's path, which
 * reports it; a missing file means the default.
 */
async function fastRecency(env: NodeJS.ProcessEnv, home: string): Promise<number | undefined> {
  const fs = await import('node:fs')
  const path = await import('node:path')
  const {homeDir} = await import('../env.js')
  const file = env.CAST_HOME
    ? path.join(home, 'config.json')
    : path.join(env.XDG_CONFIG_HOME || path.join(homeDir(env), '.config'), 'cast', 'config.json')
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch {
    return undefined
  }

  const raw = JSON.parse(text) as {inbox?: {recency?: unknown}}
  const r = raw?.inbox?.recency
  if (r === undefined) return undefined
  if (typeof r === 'number') return r
  const {parseDuration} = await import('../../core/model/durations.js')
  const ms = typeof r === 'string' ? parseDuration(r) : null
  if (ms === null || ms <= 0) throw new Error('inbox.recency is not a duration')
  return ms
}
