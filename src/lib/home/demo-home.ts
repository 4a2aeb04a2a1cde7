/**
 * The demo's home (`cast demo`): the bundled files with their time tokens filled relative to now,
 * copied into a temporary HOME, and the rows it files the way a person (or an agent) would.
 */
import fs from 'node:fs'
import path from 'node:path'

import {castId} from '../../core/model/ids.js'
import {addOwner} from '../../core/store/ownership.js'
import type {Store} from '../../core/store/store.js'

/** What the demo files besides copying its home (demo/filings.json): rows named by agent id and native id. */
export interface DemoFilings {
  /** Where demo/registry/ goes, under the temporary HOME (the agent's process registry). */
  readonly registryDir: string
  readonly records: readonly {
    readonly agent: string
    readonly native: string
    readonly declaration?: {readonly minutesAgo: number; readonly status: 'blocked' | 'done' | 'dormant'; readonly text: string}
    readonly pinned?: boolean
    /** A teammate who owns it with you. */
    readonly sharedWith?: string
    readonly filing?: 'dismissed' | 'killed' | 'snoozed' | 'stashed'
    readonly snoozeMinutes?: number
  }[]
}

// Times in the bundled files are tokens relative to now: {{t:-30m}} an ISO time, {{ms:-30m}} and
// {{s:-30m}} epoch milliseconds and seconds (a quoted token becomes a bare number), and for file
// names (no colon) {{day-30m}} YYYY/MM/DD, {{clock-30m}} YYYY-MM-DDThh-mm-ss, {{minute-30m}}
// YYYY-MM-DDThh-mm (local time, as some agents name their files) and {{stamp-30m}} the
// ISO time with : and . as - (demo/README.md says which agent uses which).
const UNIT = {d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000}
const pad = (n: number, w = 2): string => String(n).padStart(w, '0')
const render = (kind: string, at: Date): string | null => {
  const date = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`
  const hm = `${pad(at.getHours())}-${pad(at.getMinutes())}`
  switch (kind) {
    case 'clock':
      return `${date}T${hm}-${pad(at.getSeconds())}`
    case 'day':
      return date.replaceAll('-', '/')
    case 'minute':
      return `${date}T${hm}`
    case 'ms':
      return String(at.getTime())
    case 's':
      return String(Math.floor(at.getTime() / 1000))
    case 'stamp':
      return at.toISOString().replaceAll(/[:.]/g, '-')
    case 't':
      return at.toISOString()
    default:
      return null
  }
}

export function fillDemoTokens(text: string, now: number): string {
  return text.replaceAll(
    /("?)\{\{([a-z]+):?([-+])(\d+)([smhd])\}\}("?)/g,
    (m, q1: string, kind: string, sign: string, n: string, unit: string, q2: string) => {
      const at = new Date(now + (sign === '-' ? -1 : 1) * Number(n) * UNIT[unit as keyof typeof UNIT])
      const value = render(kind, at)
      if (value === null) return m
      const numeric = kind === 'ms' || kind === 's'
      return numeric && q1 && q2 ? value : `${q1}${value}${q2}`
    },
  )
}

/** A database opener (better-sqlite3's constructor, loaded by the caller). */
type OpenDb = new (file: string) => {exec(sql: string): unknown; close(): unknown}

/**
 * Copy the bundled tree with its tokens filled (file names too). A `<name>.db.sql` file is a
 * SQLite database written as SQL (a binary file cannot carry the time tokens): it becomes
 * `<name>.db`, built from the filled SQL.
 */
export function copyDemoTree(from: string, to: string, now: number, Database: OpenDb): void {
  for (const e of fs.readdirSync(from, {withFileTypes: true})) {
    const a = path.join(from, e.name)
    const b = path.join(to, fillDemoTokens(e.name, now))
    if (e.isDirectory()) {
      fs.mkdirSync(b, {recursive: true})
      copyDemoTree(a, b, now, Database)
    } else if (e.name.endsWith('.db.sql')) {
      const db = new Database(b.slice(0, -'.sql'.length))
      try {
        db.exec(fillDemoTokens(fs.readFileSync(a, 'utf8'), now))
      } finally {
        db.close()
      }
    } else {
      fs.writeFileSync(b, fillDemoTokens(fs.readFileSync(a, 'utf8'), now))
    }
  }
}

/** File the demo's rows (demo/filings.json) the way a person and the agents would, then reconcile. */
export function fileDemoRecords(store: Store, filings: DemoFilings, me: string, now: number): void {
  const facts = (sid: string): {turnIndex: number; messages: number} => store.loadSessions([sid])[0]!.facts
  store.tx(() => {
    for (const r of filings.records) {
      const sid = castId(r.agent, r.native)
      if (r.declaration) {
        const d = r.declaration
        store.patchRecords(sid, {
          declaration: {
            at: now - d.minutesAgo * 60_000,
            messages: facts(sid).messages,
            status: d.status,
            text: d.text,
            turnIndex: facts(sid).turnIndex,
          },
        })
      }

      // Shared with a teammate (cast own, cast owners, cast disown have someone to show).
      if (r.sharedWith) {
        addOwner(store, sid, me, me, now - 40 * 60_000)
        addOwner(store, sid, r.sharedWith, me, now - 39 * 60_000)
      }

      if (r.pinned) store.patchRecords(sid, {pinned: true})
      if (r.filing === 'snoozed')
        store.patchRecords(sid, {filedAt: now, filing: 'snoozed', snoozedUntil: now + (r.snoozeMinutes ?? 60) * 60_000})
      else if (r.filing === 'killed') store.patchRecords(sid, {filedAt: now, filing: 'killed', killedAt: now})
      else if (r.filing) store.patchRecords(sid, {filedAt: now, filing: r.filing})
    }

    store.reconcile(now)
  })
}

/**
 * The agent's process registry for the two stand-in processes (approval.json, working.json):
 * each file names a real pid with its real start time, so the live sessions are verifiable.
 */
export function writeDemoRegistry(
  from: string,
  to: string,
  pids: readonly number[],
  now: number,
  startOf: (pid: number) => number | null,
): void {
  fs.mkdirSync(to, {recursive: true})
  for (const [i, name] of ['approval.json', 'working.json'].entries()) {
    const pid = pids[i]!
    const start = startOf(pid) ?? now
    const text = fs
      .readFileSync(path.join(from, name), 'utf8')
      .replaceAll('"{{pid}}"', String(pid))
      .replaceAll('"{{pidStart}}"', String(Math.round(start)))
      .replaceAll('"{{now}}"', String(now))
    fs.writeFileSync(path.join(to, `${pid}.json`), text)
  }
}

/** Where a kept demo records its stand-in agent processes: CAST_HOME/demo.json. */
const DEMO_FILE = 'demo.json'

interface DemoMarker {
  readonly stand_ins: readonly {readonly pid: number; readonly started_at: number | null}[]
  readonly lives_until: number
}

/** Record a kept demo's stand-ins (pid and start time), so a later look can tell they stopped. */
export function writeDemoMarker(castHome: string, standIns: readonly {pid: number; startedAt: number | null}[], livesUntil: number): void {
  const marker: DemoMarker = {lives_until: livesUntil, stand_ins: standIns.map((s) => ({pid: s.pid, started_at: s.startedAt}))}
  fs.mkdirSync(castHome, {mode: 0o700, recursive: true})
  fs.writeFileSync(path.join(castHome, DEMO_FILE), JSON.stringify(marker) + '\n', {mode: 0o600})
}

/**
 * In a kept demo's CAST_HOME whose stand-in processes are gone (their time ran out, or someone
 * killed them): the line that says why its live sessions now read dead. Null anywhere else.
 */
export function demoStoppedLine(
  castHome: string,
  sameAlive: (pid: number, startedAt: number | null) => boolean,
  now: number,
): string | null {
  let marker: DemoMarker
  try {
    marker = JSON.parse(fs.readFileSync(path.join(castHome, DEMO_FILE), 'utf8')) as DemoMarker
  } catch {
    return null
  }

  if (!Array.isArray(marker.stand_ins) || marker.stand_ins.length === 0) return null
  const alive = (s: DemoMarker['stand_ins'][number]): boolean => Number.isInteger(s.pid) && sameAlive(s.pid, s.started_at)
  if (marker.stand_ins.every(alive)) return null
  const why = typeof marker.lives_until === 'number' && now >= marker.lives_until ? 'their time ran out' : 'they were stopped'
  return `This kept demo's two stand-in agent processes have ended (${why}): its live sessions now read needs input:dead. "cast demo --keep" makes a fresh one.`
}
