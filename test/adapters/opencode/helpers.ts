/**
 * OpenCode fixtures: a real opencode.db built with better-sqlite3 from the real schema
 * (test/fixtures/opencode/schema.sql) in WAL mode, with rows shaped like OpenCode's own
 * (MessageV2.Info / Part JSON in `data`); a reader that opens it the way the engine does; and a
 * walker over the committed storage/ JSON tree.
 */
import Database from 'better-sqlite3'
import {mkdirSync, readFileSync, readdirSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {composeOpencode, opencode, readOpencodeDb} from '../../../src/adapters/opencode/index.js'
import type {AdapterEnv, Contribution, FileMatch, ReadonlyDb} from '../../../src/core/ingest/adapter.js'
import type {SessionFacts} from '../../../src/core/model/types.js'

export const FIXTURES = fileURLToPath(new URL('../../fixtures/opencode/', import.meta.url))
export const SCHEMA = readFileSync(join(FIXTURES, 'schema.sql'), 'utf8')
/** The committed storage/ tree lives at <FIXTURES>/data/opencode/storage: XDG_DATA_HOME is <FIXTURES>/data. */
export const DATA = join(FIXTURES, 'data')
export const ctx: AdapterEnv = {env: {XDG_DATA_HOME: DATA}, home: '/nonexistent-home'}

export const T0 = Date.parse('2026-08-01T09:00:00.000Z')
export const t = (s: number): number => T0 + s * 1000

export interface PartSpec {
  readonly id: string
  readonly data: Record<string, unknown>
  readonly updated?: number
}

export interface MessageSpec {
  readonly id: string
  readonly role: 'user' | 'assistant'
  readonly created: number
  readonly completed?: number
  readonly finish?: string
  readonly error?: {name: string; data: Record<string, unknown>}
  readonly modelID?: string
  readonly providerID?: string
  readonly summary?: boolean
  readonly updated?: number
  readonly parts?: readonly PartSpec[]
  /** Stored as is in `data` instead of the built JSON (malformed rows). */
  readonly rawData?: string
}

export interface SessionSpec {
  readonly id: string
  readonly title: string
  readonly directory: string
  readonly parent?: string
  readonly created: number
  readonly updated?: number
  readonly compacting?: number
  readonly archived?: number
  readonly model?: {id: string; providerID: string}
  readonly messages: readonly MessageSpec[]
}

function messageData(s: SessionSpec, m: MessageSpec, prevUser: string | null): Record<string, unknown> {
  if (m.role === 'user') {
    return {
      agent: 'build',
      model: {modelID: m.modelID ?? 'claude-sonnet-4-5', providerID: m.providerID ?? 'anthropic'},
      role: 'user',
      time: {created: m.created},
    }
  }

  return {
    agent: 'build',
    cost: 0.0123,
    mode: 'build',
    modelID: m.modelID ?? 'claude-sonnet-4-5',
    parentID: prevUser,
    path: {cwd: s.directory, root: s.directory},
    providerID: m.providerID ?? 'anthropic',
    role: 'assistant',
    time: m.completed === undefined ? {created: m.created} : {completed: m.completed, created: m.created},
    tokens: {cache: {read: 0, write: 0}, input: 1200, output: 300, reasoning: 0},
    ...(m.finish === undefined ? {} : {finish: m.finish}),
    ...(m.error === undefined ? {} : {error: m.error}),
    ...(m.summary === undefined ? {} : {summary: m.summary}),
  }
}

/** Insert sessions (and a project for them) into an open database. */
export function insertSessions(db: Database.Database, sessions: readonly SessionSpec[]): void {
  if (sessions.length === 0) return
  db.prepare(
    `INSERT OR IGNORE INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES ('global', '/', NULL, ?, ?, '[]')`,
  ).run(T0, T0)
  const columns = new Set((db.prepare(`PRAGMA table_info(session)`).all() as {name: string}[]).map((c) => c.name))
  for (const s of sessions) {
    const row: Record<string, unknown> = {
      directory: s.directory,
      id: s.id,
      parent_id: s.parent ?? null,
      project_id: 'global',
      slug: s.id.slice(-8).toLowerCase(),
      time_archived: s.archived ?? null,
      time_compacting: s.compacting ?? null,
      time_created: s.created,
      time_updated: s.updated ?? s.messages.at(-1)?.completed ?? s.messages.at(-1)?.created ?? s.created,
      title: s.title,
      version: '1.18.31',
      ...(s.model ? {model: JSON.stringify(s.model)} : {}),
    }
    const keys = Object.keys(row).filter((k) => columns.has(k))
    // An upsert, not REPLACE: REPLACE deletes the row first and the foreign keys cascade.
    const update = keys
      .filter((k) => k !== 'id')
      .map((k) => `${k} = excluded.${k}`)
      .join(', ')
    db.prepare(
      `INSERT INTO session (${keys.join(', ')}) VALUES (${keys.map(() => '?').join(', ')}) ON CONFLICT(id) DO UPDATE SET ${update}`,
    ).run(...keys.map((k) => row[k]))
    let prevUser: string | null = null
    for (const m of s.messages) {
      const data = m.rawData ?? JSON.stringify(messageData(s, m, prevUser))
      if (m.role === 'user') prevUser = m.id
      const updated = m.updated ?? m.completed ?? m.created
      db.prepare(`INSERT OR REPLACE INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`).run(
        m.id,
        s.id,
        m.created,
        updated,
        data,
      )
      for (const p of m.parts ?? []) {
        db.prepare(
          `INSERT OR REPLACE INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
        ).run(p.id, m.id, s.id, m.created, p.updated ?? updated, JSON.stringify(p.data))
      }
    }
  }
}

/** Create <file> with the real schema, in WAL mode, holding these sessions. The handle is closed. */
export function buildDb(file: string, sessions: readonly SessionSpec[], schema = SCHEMA): void {
  mkdirSync(dirname(file), {recursive: true})
  const db = new Database(file)
  try {
    db.pragma('journal_mode = WAL')
    db.exec(schema)
    insertSessions(db, sessions)
  } finally {
    db.close()
  }
}

/** Open the database read-only and hand it to the adapter, as the engine does. */
export function readDb(file: string): Contribution[] {
  const db = new Database(file, {fileMustExist: true, readonly: true, timeout: 2000})
  try {
    const handle: ReadonlyDb = {
      all: (sql, ...params) => db.prepare(sql).all(...params) as Record<string, unknown>[],
      columns: (table) => (db.prepare(`PRAGMA table_info(${JSON.stringify(table)})`).all() as {name: string}[]).map((c) => c.name),
    }
    return readOpencodeDb(handle, file)
  } finally {
    db.close()
  }
}

/** Composed facts of every session in the database, by id. */
export function dbFacts(file: string): Map<string, SessionFacts> {
  const out = new Map<string, SessionFacts>()
  for (const c of readDb(file)) out.set(c.nativeId, composeOpencode(c.nativeId, [c]))
  return out
}

// Part shapes as OpenCode writes them.
export const text = (id: string, value: string, at: number): PartSpec => ({
  data: {text: value, time: {end: at, start: at - 500}, type: 'text'},
  id,
})
export const stepStart = (id: string): PartSpec => ({data: {type: 'step-start'}, id})
export const stepFinish = (id: string, reason: string): PartSpec => ({
  data: {cost: 0.01, reason, tokens: {cache: {read: 0, write: 0}, input: 1200, output: 300, reasoning: 0}, type: 'step-finish'},
  id,
})
export const tool = (id: string, name: string, status: string, at: number, input: Record<string, unknown> = {}): PartSpec => ({
  data: {
    callID: `call_${id}`,
    state:
      status === 'completed'
        ? {input, metadata: {}, output: 'ok', status, time: {end: at + 1000, start: at}, title: name}
        : {input, status, time: {start: at}},
    tool: name,
    type: 'tool',
  },
  id,
})

/** Every storage file of the committed tree that the adapter matches, like the engine's discovery. */
export function discoverStorage(env: AdapterEnv = ctx): {path: string; match: FileMatch}[] {
  const out: {path: string; match: FileMatch}[] = []
  const walk = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, {withFileTypes: true})
    } catch {
      return
    }

    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name)
      if (e.isDirectory()) {
        if (depth < 12 && !opencode.skipDir?.(p)) walk(p, depth + 1)
      } else {
        const match = opencode.match(p, env)
        if (match) out.push({match, path: p})
      }
    }
  }

  for (const root of opencode.roots(env)) walk(root, 0)
  return out
}

/** Composed facts of every storage session, by id. */
export function storageFacts(env: AdapterEnv = ctx): Map<string, SessionFacts> {
  const by = new Map<string, Contribution[]>()
  for (const d of discoverStorage(env)) {
    if (d.match.kind !== 'whole') continue
    for (const c of opencode.parseWhole!(d.path, readFileSync(d.path, 'utf8'), d.match)) {
      by.set(c.nativeId, [...(by.get(c.nativeId) ?? []), c])
    }
  }

  const out = new Map<string, SessionFacts>()
  for (const [id, list] of by) {
    if (!list.some((c) => c.facts.cwd !== undefined)) continue
    out.set(id, composeOpencode(id, list))
  }

  return out
}
