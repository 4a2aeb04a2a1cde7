/**
 * Is the person at the desk? Paging holds the phone while they are: a keystroke in `cast inbox`
 * or the web page (each writes its last keystroke time to CAST_HOME/activity.json, at most every
 * few seconds), or a tmux client attached to an agent's pane that typed (tmux's client_activity,
 * read from every tmux server the user owns), within the active window (notify.active_window,
 * default 3 minutes). `cast presence` prints what this finds and why.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {SessionRow} from '../../core/store/store.js'
import type {Env} from '../home/env.js'
import {treeOf} from '../../core/model/kill-plan.js'
import {shortId} from '../../core/model/ids.js'
import {childrenMap} from '../agents/terminate.js'
import {listAllPanes, tmuxSockets} from '../agents/tmux.js'
import {paneOf} from '../views/views.js'

export const DEFAULT_ACTIVE_WINDOW_MS = 3 * 60_000

export type ActivitySource = 'inbox' | 'web'

export interface Signal {
  readonly source: ActivitySource | 'tmux'
  /** Last keystroke (ms). */
  readonly at: number
  /** What it was: "cast inbox", "the web page", "tmux client /dev/pts/3 on %4 (session abc1234)". */
  readonly detail: string
}

export interface DeskPresence {
  readonly active: boolean
  readonly windowMs: number
  /** The newest signal inside the window, else null. */
  readonly why: Signal | null
  /** Every signal found, newest first. */
  readonly signals: readonly Signal[]
}

const activityFile = (home: string): string => path.join(home, 'activity.json')
const last = new Map<string, number>()

/** A keystroke in `cast inbox` or the page: written at most every 5 s per source and process. */
export function recordKeystroke(home: string, source: ActivitySource, now: number): void {
  if (now - (last.get(source) ?? 0) < 5000) return
  last.set(source, now)
  try {
    const cur = readActivity(home)
    const file = activityFile(home)
    fs.mkdirSync(home, {recursive: true})
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, JSON.stringify({...cur, [source]: now}) + '\n', {mode: 0o600})
    fs.renameSync(tmp, file)
  } catch {
    // a read-only home: presence falls back on tmux
  }
}

export function readActivity(home: string): Partial<Record<ActivitySource, number>> {
  try {
    const v = JSON.parse(fs.readFileSync(activityFile(home), 'utf8')) as Record<string, unknown>
    const out: Partial<Record<ActivitySource, number>> = {}
    for (const k of ['inbox', 'web'] as const) if (typeof v[k] === 'number') out[k] = v[k]
    return out
  } catch {
    return {}
  }
}

/**
 * The tmux panes agents run in, keyed "socket|%id": a pane whose process tree holds a session's
 * live process (as cast approve finds it), or the pane the screen sweep tied ("*|%id").
 */
async function agentPanes(env: Env, rows: readonly SessionRow[]): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const pids = new Map<number, string>()
  for (const r of rows) {
    const p = paneOf(r)
    if (p) out.set(`*|${p}`, r.id)
    const proc = r.facts.process
    if (proc?.alive && proc.exited === null) pids.set(proc.pid, r.id)
  }

  if (pids.size === 0) return out
  const children = childrenMap()
  if (!children) return out
  for (const pane of await listAllPanes(env)) {
    if (pane.dead) continue
    const hit = treeOf(pane.pid, children).find((p) => pids.has(p))
    if (hit !== undefined) out.set(`${pane.socket ?? '*'}|${pane.id}`, pids.get(hit)!)
  }

  return out
}

/** Clients attached to a pane an agent runs in, with their last keystroke (tmux's client_activity). */
export async function tmuxSignals(env: Env, rows: readonly SessionRow[]): Promise<Signal[]> {
  const panes = await agentPanes(env, rows)
  if (panes.size === 0) return []
  const {execa} = await import('execa')
  const out: Signal[] = []
  const sockets = tmuxSockets(env)
  for (const socket of sockets.length > 0 ? sockets : [undefined]) {
    let text = ''
    try {
      const r = await execa(
        'tmux',
        [...(socket ? ['-S', socket] : []), 'list-clients', '-F', '#{client_activity} #{pane_id} #{client_name}'],
        {
          env: env as Record<string, string>,
          extendEnv: false,
          timeout: 5000,
        },
      )
      text = r.stdout
    } catch {
      continue
    }

    for (const line of text.split('\n')) {
      const m = /^(\d+) (%\d+) (.*)$/.exec(line.trim())
      if (!m) continue
      const id = panes.get(`${socket ?? '*'}|${m[2]!}`) ?? panes.get(`*|${m[2]!}`)
      if (id === undefined) continue
      out.push({at: Number(m[1]) * 1000, detail: `tmux client ${m[3]} on ${m[2]} (session ${shortId(id)})`, source: 'tmux'})
    }
  }

  return out
}

/** What cast believes: at the desk (the phone is held) or away (pages go to the phone). */
export async function deskPresence(o: {
  home: string
  env: Env
  rows: readonly SessionRow[]
  now: number
  windowMs: number
}): Promise<DeskPresence> {
  const a = readActivity(o.home)
  const signals: Signal[] = [
    ...(a.inbox === undefined ? [] : [{at: a.inbox, detail: 'a keystroke in cast inbox', source: 'inbox' as const}]),
    ...(a.web === undefined ? [] : [{at: a.web, detail: 'a keystroke in the web page', source: 'web' as const}]),
    ...(await tmuxSignals(o.env, o.rows)),
  ].sort((x, y) => y.at - x.at)
  const why = signals.find((s) => o.now - s.at < o.windowMs && s.at <= o.now + 60_000) ?? null
  return {active: why !== null, signals, why, windowMs: o.windowMs}
}
