/**
 * Drive an adapter the way the ingest engine does, without the store: walk its roots, match each
 * file, feed JSONL files line by line with byte offsets (a partial last line waits; optionally
 * round-tripping the state through JSON between lines, as the engine persists it), parse whole
 * files (a throw is a counted parse error), open SQLite files read-only, reduce hook payloads,
 * check process claims against the real process table, and compose.
 */
import Database from 'better-sqlite3'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {
  Adapter,
  AdapterEnv,
  CheckedContribution,
  Contribution,
  FileMatch,
  HookEvent,
  ReadonlyDb,
} from '../../../src/core/ingest/adapter.js'
import {composeFacts} from '../../../src/core/ingest/compose.js'
import {feedLine, withParseErrors} from '../../../src/core/ingest/jsonl-line.js'
import type {SessionFacts} from '../../../src/core/model/types.js'
import {check, splitLines} from '../claude-code/engine.js'

export {check, processStartMs} from '../claude-code/engine.js'

export function discover(adapter: Adapter, ctx: AdapterEnv): {path: string; match: FileMatch}[] {
  const out = new Map<string, FileMatch>()
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }

    for (const e of entries) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (depth < 12 && adapter.skipDir?.(p) !== true) walk(p, depth + 1)
      } else if (!out.has(p)) {
        const match = adapter.match(p, ctx)
        if (match) out.set(p, match)
      }
    }
  }

  for (const root of adapter.roots(ctx)) walk(root, 0)
  return [...out].map(([path, match]) => ({match, path})).sort((a, b) => a.path.localeCompare(b.path))
}

export interface Fed {
  readonly state: unknown
  readonly contributions: Contribution[]
  /** Lines the parser rejected. */
  readonly rejected: number
  /** Lines fed. */
  readonly lines: number
}

export interface FeedOptions {
  readonly roundTrip?: boolean
  /** Feed only the first n complete lines. */
  readonly limit?: number
  /** Lines appended after the file's own. */
  readonly append?: readonly string[]
  /** Bytes to read instead of the file's. */
  readonly bytes?: Buffer
}

export function feedJsonl(adapter: Adapter, path: string, match: FileMatch, opts: FeedOptions = {}): Fed {
  if (match.kind !== 'jsonl' || adapter.jsonl === undefined) throw new Error(`not a jsonl file: ${path}`)
  const parser = adapter.jsonl
  const bytes = opts.bytes ?? readFileSync(path)
  let lines = splitLines(bytes)
  if (opts.limit !== undefined) lines = lines.slice(0, opts.limit)
  let end = lines.length > 0 ? lines.at(-1)!.offset + Buffer.byteLength(lines.at(-1)!.text) + 1 : 0
  const all = [...lines]
  for (const text of opts.append ?? []) {
    all.push({offset: end, text})
    end += Buffer.byteLength(text) + 1
  }

  let state: unknown = parser.init(path, match)
  let rejected = 0
  for (const line of all) {
    if (opts.roundTrip === true) state = JSON.parse(JSON.stringify(state)) as unknown
    if (!feedLine(parser, state, line.text, line.offset)) rejected += 1
  }

  return {contributions: withParseErrors(parser.contributions(state, path, match), rejected), lines: all.length, rejected, state}
}

/** The engine's read-only handle over a SQLite file. */
export function withReadonlyDb<T>(path: string, fn: (db: ReadonlyDb) => T): T {
  const db = new Database(path, {fileMustExist: true, readonly: true, timeout: 200})
  try {
    return fn({
      all: (sql, ...params) => db.prepare(sql).all(...params) as Record<string, unknown>[],
      columns: (table) => (db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as {name: string}[]).map((c) => c.name),
    })
  } finally {
    db.close()
  }
}

export interface ReadResult {
  readonly contributions: Contribution[]
  /** Files whose read failed (a whole file caught mid-write, a locked database): counted, skipped. */
  readonly failed: string[]
}

/** Read one file as the engine would. */
export function readOne(adapter: Adapter, path: string, match: FileMatch, opts: FeedOptions = {}): ReadResult {
  try {
    if (match.kind === 'jsonl') return {contributions: feedJsonl(adapter, path, match, opts).contributions, failed: []}
    if (match.kind === 'whole') return {contributions: adapter.parseWhole?.(path, readFileSync(path, 'utf8'), match) ?? [], failed: []}
    return {contributions: withReadonlyDb(path, (db) => adapter.readSqlite?.(db, path, match) ?? []), failed: []}
  } catch {
    return {contributions: [], failed: [path]}
  }
}

/** Every contribution under the adapter's roots, by session, and the files that failed. */
export function readAll(adapter: Adapter, ctx: AdapterEnv): {bySession: Map<string, Contribution[]>; failed: string[]} {
  const bySession = new Map<string, Contribution[]>()
  const failed: string[] = []
  for (const d of discover(adapter, ctx)) {
    const r = readOne(adapter, d.path, d.match)
    failed.push(...r.failed)
    for (const c of r.contributions) bySession.set(c.nativeId, [...(bySession.get(c.nativeId) ?? []), c])
  }

  return {bySession, failed}
}

export function compose(adapter: Adapter, nativeId: string, contributions: readonly Contribution[]): SessionFacts {
  const checked: CheckedContribution[] = contributions.filter((c) => c.nativeId === nativeId).map((c) => check(c))
  return adapter.compose ? adapter.compose(nativeId, checked) : composeFacts(checked)
}

/** The composed facts of one session under the adapter's roots, with extra contributions (hooks, claims). */
export function factsOf(adapter: Adapter, ctx: AdapterEnv, nativeId: string, extra: readonly Contribution[] = []): SessionFacts {
  const {bySession} = readAll(adapter, ctx)
  return compose(adapter, nativeId, [...(bySession.get(nativeId) ?? []), ...extra])
}

/** Feed hook payloads through the adapter's reducer (state JSON round-tripped, as the spool stores it). */
export function reduceHooks(adapter: Adapter, events: readonly HookEvent[]): Contribution[] {
  const hooks = adapter.hooks
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
