/**
 * cast as the conformance suite sees it: the built CLI run one-shot (`cast sessions --json`)
 * and as a running `cast sessions -w --json` whose lines are kept with their arrival times.
 */
import Database from 'better-sqlite3'
import {spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {BIN, runCast, type RunResult} from '../../helpers/cli.js'
import {agentModules} from './agent-bin.js'

export {runCast}

/**
 * A liveness bound for "reads dead within 2 s" on a loaded CI machine: the test checks the
 * line arrives (and never reads working meanwhile); the figure itself is recorded with
 * recordFigure and reported in the README's table, never asserted as a timing.
 */
export const DEAD_BOUND_MS = 15_000

export interface CastSession {
  id: string
  native_id: string
  agent: string
  state: string
  reason: string
  rule: string
  bucket: string
  title: string
  live: boolean
  pid: number | null
  messages: number
  parent_id: string | null
  [k: string]: unknown
}

/** The environment cast runs in for one agent home: that HOME, a CAST_HOME beside it, the tmux dir. */
export function castEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CAST_HOME: path.join(path.dirname(home), 'cast'),
    CAST_USER: 'conformance@example.com',
    HOME: home,
    NO_COLOR: '1',
    // The agent CLIs under test first (agent-bin.ts), then the project's own tools.
    PATH: `${path.join(agentModules(), '.bin')}:${path.join(path.dirname(BIN), '..', 'node_modules', '.bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    ...extra,
  }
}

/** One-shot: every session cast lists (`--all`, so nothing is hidden by recency or filing). */
export async function sessions(env: Record<string, string>): Promise<CastSession[]> {
  const r = await runCast(['sessions', '--json', '--all'], {env, timeout: 60_000})
  if (r.code !== 0) throw new Error(`cast sessions exited ${r.code}: ${r.stderr}`)
  return (JSON.parse(r.stdout) as {sessions: CastSession[]}).sessions
}

/**
 * Poll `cast sessions --json` until one session satisfies `ok`; returns it. On timeout the
 * error shows what cast said last, and `cast explain` of each session.
 */
export async function until(
  env: Record<string, string>,
  ok: (s: CastSession) => boolean,
  timeoutMs = 90_000,
  what = 'a matching session',
): Promise<CastSession> {
  const end = Date.now() + timeoutMs
  let last: CastSession[] = []
  while (Date.now() < end) {
    last = await sessions(env)
    const hit = last.find(ok)
    if (hit) return hit
    await new Promise((r) => setTimeout(r, 500))
  }
  const explained: string[] = []
  for (const s of last.slice(0, 3)) explained.push((await runCast(['explain', s.id], {env})).stdout)
  throw new Error(
    `cast never showed ${what} within ${timeoutMs} ms; it said:\n${last.map((s) => `${s.agent} ${s.native_id} ${s.state}/${s.reason} (${s.rule}) live=${s.live} title=${JSON.stringify(s.title)}`).join('\n')}\n${explained.join('\n')}`,
  )
}

/** The one session of the agent in this home, as cast lists it now (top-level rows only). */
export async function only(env: Record<string, string>, agent: string): Promise<CastSession[]> {
  return (await sessions(env)).filter((s) => s.agent === agent && !s.parent_id)
}

export interface WatchLine {
  readonly at: number
  readonly line: Record<string, any>
}

/** A running `cast sessions -w --json`: every line with the time it arrived. */
export class Watch {
  readonly lines: WatchLine[] = []
  private readonly child: ChildProcess
  private buf = ''
  stderr = ''
  private waiters: (() => void)[] = []

  constructor(
    private readonly env: Record<string, string>,
    args: readonly string[] = [],
  ) {
    this.child = spawn(process.execPath, [BIN, 'sessions', '-w', '--json', ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
    this.child.stdout!.setEncoding('utf8')
    this.child.stdout!.on('data', (chunk: string) => {
      this.buf += chunk
      let i
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const raw = this.buf.slice(0, i)
        this.buf = this.buf.slice(i + 1)
        try {
          this.lines.push({at: Date.now(), line: JSON.parse(raw)})
        } catch {
          this.lines.push({at: Date.now(), line: {unparsed: raw}})
        }
        for (const w of this.waiters.splice(0)) w()
      }
    })
    this.child.stderr!.on('data', (c) => (this.stderr += String(c)))
  }

  /** The first line at or after index `from` that satisfies `ok`. */
  async wait(ok: (l: Record<string, any>) => boolean, timeoutMs = 90_000, from = 0): Promise<WatchLine> {
    const end = Date.now() + timeoutMs
    for (;;) {
      const hit = this.lines.slice(from).find((l) => ok(l.line))
      if (hit) return hit
      const left = end - Date.now()
      if (left <= 0)
        throw new Error(
          `no watch line matched within ${timeoutMs} ms; lines:\n${this.lines.map((l) => JSON.stringify(l.line)).join('\n')}\nstderr: ${this.stderr}`,
        )
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 500))
        this.waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
  }

  /**
   * Wait until this watch runs the ingester (it holds the ingester lease), then let its first
   * pass finish, so arrival times measure the action. A fixed pause alone was too short on a
   * loaded machine: a fast headless run finished before the watch began.
   */
  async ready(timeoutMs = 60_000): Promise<void> {
    const db = path.join(this.env.CAST_HOME!, 'cast.db')
    const end = Date.now() + timeoutMs
    for (;;) {
      if (fs.existsSync(db)) {
        const d = new Database(db, {readonly: true, timeout: 5000})
        try {
          const row = d.prepare(`SELECT pid FROM leases WHERE name = 'ingester'`).get() as {pid: number} | undefined
          if (row?.pid === this.child.pid) break
        } catch {
          // No schema yet: the watch has not opened the store.
        } finally {
          d.close()
        }
      }

      if (Date.now() > end) throw new Error(`the watch did not take the ingester lease within ${timeoutMs} ms; stderr: ${this.stderr}`)
      if (this.child.exitCode !== null) throw new Error(`the watch exited (${this.child.exitCode}); stderr: ${this.stderr}`)
      await new Promise((r) => setTimeout(r, 200))
    }

    await new Promise((r) => setTimeout(r, 1500))
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve()
      this.child.once('exit', () => resolve())
      this.child.kill('SIGTERM')
      setTimeout(() => this.child.kill('SIGKILL'), 3000).unref()
    })
  }
}

/** Latency figures the suite keeps (ms from the moment the truth was on screen to cast's line). */
export function recordFigure(agent: string, scenario: string, figure: Record<string, number | string | null>): void {
  const dir = path.join(path.dirname(BIN), '..', 'test', 'conformance', '.results')
  fs.mkdirSync(dir, {recursive: true})
  fs.appendFileSync(
    path.join(dir, `${agent}.figures.jsonl`),
    `${JSON.stringify({agent, at: new Date().toISOString(), scenario, ...figure})}\n`,
  )
}

export type {RunResult}
