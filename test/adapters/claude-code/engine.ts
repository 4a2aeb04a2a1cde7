/**
 * A tiny stand-in for the ingest engine, enough to drive the Claude Code adapter in tests:
 * match a path, feed complete lines with their byte offsets (optionally round-tripping the state
 * through JSON between lines, as the engine persists it), check process claims against the real
 * process table, and compose.
 */
import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import type {AdapterEnv, CheckedContribution, Contribution, FileMatch, HookEvent} from '../../../src/core/ingest/adapter.js'
import type {SessionFacts} from '../../../src/core/model/types.js'
import {feedLine, withParseErrors} from '../../../src/core/ingest/jsonl-line.js'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url))
export const REAL = join(FIXTURES, 'real', 'claude')
/** Our own fixtures are laid out like a CLAUDE_CONFIG_DIR. */
export const HOME = join(FIXTURES, 'claude')
export const PROJ = join(HOME, 'projects', '-tmp-proj')
export const ctx: AdapterEnv = {env: {CLAUDE_CONFIG_DIR: HOME}, home: '/nonexistent-home'}

export const sid = (k: number): string => `a1000000-0000-4000-8000-0000000000${String(k).padStart(2, '0')}`
export const transcriptPath = (k: number): string => join(PROJ, `${sid(k)}.jsonl`)
export const base = Date.parse('2026-08-01T10:00:00.000Z')

export interface Line {
  readonly text: string
  readonly offset: number
}

/** Complete lines (a partial last line waits for its newline) with their byte offsets. */
export function splitLines(bytes: Buffer): Line[] {
  const out: Line[] = []
  let start = 0
  for (let i = bytes.indexOf(10, start); i >= 0; i = bytes.indexOf(10, start)) {
    out.push({offset: start, text: bytes.subarray(start, i).toString('utf8')})
    start = i + 1
  }
  return out
}

export interface Fed {
  readonly contributions: Contribution[]
  readonly state: unknown
  /** Lines line() rejected. */
  readonly rejected: number
}

export interface FeedOptions {
  /** Serialize the state with JSON between every line. */
  readonly roundTrip?: boolean
  /** Feed only the first n lines. */
  readonly limit?: number
  /** The path the adapter sees (defaults to the file's own path). */
  readonly as?: string
  readonly match?: FileMatch & {kind: 'jsonl'}
}

export function feedFile(file: string, opts: FeedOptions = {}): Fed {
  const path = opts.as ?? file
  const match = opts.match ?? claudeCode.match(path, ctx)
  if (match === null || match.kind !== 'jsonl') throw new Error(`not a transcript: ${path}`)
  const parser = claudeCode.jsonl
  if (parser === undefined) throw new Error('no jsonl parser')
  let state: unknown = parser.init(path, match)
  let rejected = 0
  const lines = splitLines(readFileSync(file))
  for (const line of lines.slice(0, opts.limit ?? lines.length)) {
    if (opts.roundTrip === true) state = JSON.parse(JSON.stringify(state))
    if (!feedLine(parser, state, line.text, line.offset)) rejected += 1
  }
  return {contributions: withParseErrors(parser.contributions(state, path, match), rejected), rejected, state}
}

/** A real-fixture file seen at `projects/-tmp-proj/<name>.jsonl` under our config dir. */
export function feedReal(name: string, opts: FeedOptions = {}): Fed {
  const file = join(REAL, name)
  const id = name.replace(/\.jsonl$/, '')
  return feedFile(file, {...opts, as: join(PROJ, `${id}.jsonl`)})
}

export function parseWhole(path: string, text = readFileSync(path, 'utf8')): Contribution[] {
  const match = claudeCode.match(path, ctx)
  if (match === null || match.kind !== 'whole' || claudeCode.parseWhole === undefined) throw new Error(`not a whole file: ${path}`)
  return claudeCode.parseWhole(path, text, match)
}

/** Start time of a process (epoch ms), from /proc on Linux, else `ps -o lstart=`. */
export function processStartMs(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[19])
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]
    const hz = Number(execFileSync('getconf', ['CLK_TCK'], {encoding: 'utf8'}).trim()) || 100
    if (btime !== undefined && Number.isFinite(ticks)) return Number(btime) * 1000 + Math.round((ticks / hz) * 1000)
  } catch {
    // not Linux
  }
  try {
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {encoding: 'utf8'}).trim()
    const ms = Date.parse(text)
    return Number.isNaN(ms) ? null : ms
  } catch {
    return null
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Check a claim as the engine does: pid alive and, when known, the start time matches. */
export function check(c: Contribution): CheckedContribution {
  const claim = c.processClaim
  if (claim === undefined) return c
  let alive = pidAlive(claim.pid)
  if (alive && claim.startedAt !== null) {
    const started = processStartMs(claim.pid)
    alive = started !== null && Math.abs(started - claim.startedAt) < 5000
  }
  return {...c, processAlive: alive}
}

export function compose(nativeId: string, contributions: readonly Contribution[]): SessionFacts {
  if (claudeCode.compose === undefined) throw new Error('no compose')
  return claudeCode.compose(
    nativeId,
    contributions.filter((c) => c.nativeId === nativeId).map((c) => check(c)),
  )
}

/** Feed hook payloads through the reducer and return each session's contribution. */
export function reduceHooks(events: readonly HookEvent[]): Contribution[] {
  const hooks = claudeCode.hooks
  if (hooks === undefined) throw new Error('no hooks')
  const states = new Map<string, unknown>()
  for (const event of events) {
    const id = hooks.sessionOf(event)
    if (id === null) continue
    const state = JSON.parse(JSON.stringify(states.get(id) ?? hooks.init())) as unknown
    states.set(id, hooks.reduce(state, event))
  }
  const out: Contribution[] = []
  for (const [id, state] of states) {
    const c = hooks.contribution(state, id)
    if (c !== null) out.push(c)
  }
  return out
}

export function hook(at: number, payload: Record<string, unknown>): HookEvent {
  return {agent: 'claude_code', at, payload}
}

/** A registry file's text for a live process (this test process, with its real start time). */
export function liveRegistry(sessionId: string, fields: Record<string, unknown>): string {
  return JSON.stringify({
    cwd: '/tmp/proj',
    entrypoint: 'cli',
    kind: 'interactive',
    pid: process.pid,
    sessionId,
    startedAt: processStartMs(process.pid),
    version: '2.1.180',
    ...fields,
  })
}

/** Feed records (objects or raw text) as one file's lines; returns the composed facts. */
export function feedRecords(
  records: readonly (Record<string, unknown> | string)[],
  nativeId = 'c0ffee00-0000-4000-8000-000000000000',
): {facts: SessionFacts; rejected: number} {
  const path = join(PROJ, `${nativeId}.jsonl`)
  const match = claudeCode.match(path, ctx)
  if (match?.kind !== 'jsonl' || claudeCode.jsonl === undefined) throw new Error('no parser')
  const parser = claudeCode.jsonl
  const state: unknown = parser.init(path, match)
  let offset = 0
  let rejected = 0
  for (const record of records) {
    const text = typeof record === 'string' ? record : JSON.stringify(record)
    if (!feedLine(parser, state, text, offset)) rejected += 1
    offset += Buffer.byteLength(text) + 1
  }
  return {facts: compose(nativeId, withParseErrors(parser.contributions(state, path, match), rejected)), rejected}
}
