/**
 * Reading OpenCode's SQLite database (≥ 1.2; docs/agents/opencode.md). The engine opens it
 * read-only and hands over a ReadonlyDb whenever the file changes; this module only queries.
 *
 * The schema moves fast (1.2 → 1.1x extra tables → 2.x `session_v2`), so tables and columns are
 * probed first (`sqlite_master`, PRAGMA table_info) and a missing column reads as NULL. Parts are
 * taken apart inside SQLite (`json_extract`, guarded by `json_valid`), so large tool outputs never
 * cross into JavaScript; message records are small and parsed here. Each kind of row is read with
 * one statement per read, however many sessions need it.
 *
 * Incremental: every session gets a signature from its own row (`time_updated`, title, revert,
 * compaction…) plus its message count and latest message `time_created`, the last two from one
 * pass over OpenCode's (session_id, time_created, id) index without touching the rows. A settled
 * session whose signature has not moved since the last read in this process is answered from a
 * small per-database cache: a settled turn only changes by a new message (count, time) or through
 * the session row (title, revert, compaction). Unsettled sessions — a turn in progress changes
 * through message and part updates alone — and changed ones are queried again, each through the
 * message and part indexes. The cache holds one contribution per session of the database, is
 * replaced on every read, and gives the same answer a cold read would.
 */
import type {Contribution, ReadonlyDb} from '../../core/ingest/adapter.js'
import type {DbFacts} from './facts.js'
import type {FactSource} from '../../core/model/types.js'
import {MAX_ASSISTANT_TEXT, byTime, firstLine, isPlaceholderTitle, messageRecord, summarize} from './model.js'
import type {OcMessage, OcPart, OcRefs, OcSession} from './model.js'

interface Cached {
  readonly sig: string
  readonly contribution: Contribution
}

const CACHE = new Map<string, Map<string, Cached>>()
/** Databases remembered at once (one per channel; tests open many). */
const MAX_CACHED_DBS = 8

/** Forget what earlier reads cached (tests). */
export function clearOpencodeCache(): void {
  CACHE.clear()
}

type Row = Record<string, unknown>

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

function num(value: unknown): number | null {
  if (typeof value === 'bigint') return Number(value)
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}

/** `"col"` when the table has it, else NULL. */
function pick(columns: ReadonlySet<string>, name: string): string {
  return columns.has(name) ? ident(name) : 'NULL'
}

/** `session.model` is JSON `{id, providerID, variant?}`. */
function modelId(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0) return null
  try {
    const parsed = JSON.parse(value) as unknown
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as {id?: unknown}).id === 'string')
      return (parsed as {id: string}).id
  } catch {
    // not JSON: ignore
  }

  return null
}

export function refsFor(path: string): OcRefs {
  const at = (what: string, id: string): FactSource => ({kind: 'sqlite', ref: `${path}#${what}=${id}`})
  return {
    message: (id) => at('message', id),
    part: (id) => at('part', id),
    session: (id) => at('session', id),
  }
}

interface Schema {
  readonly sessionTable: string
  readonly session: ReadonlySet<string>
  readonly message: ReadonlySet<string> | null
  readonly part: ReadonlySet<string> | null
}

function probe(db: ReadonlyDb): Schema | null {
  const tables = new Set(db.all(`SELECT name FROM sqlite_master WHERE type = 'table'`).map((r) => String(r.name)))
  const sessionTable = ['session', 'session_v2'].find((t) => tables.has(t))
  if (!sessionTable) return null
  const session = new Set(db.columns(sessionTable))
  if (!session.has('id')) return null
  const message = tables.has('message') ? new Set(db.columns('message')) : null
  const part = tables.has('part') ? new Set(db.columns('part')) : null
  return {
    message: message && message.has('id') && message.has('session_id') && message.has('data') ? message : null,
    part: part && part.has('id') && part.has('message_id') && part.has('data') ? part : null,
    session,
    sessionTable,
  }
}

function sessionOf(row: Row): OcSession {
  return {
    archived: num(row.time_archived),
    compacting: num(row.time_compacting),
    created: num(row.time_created),
    directory: str(row.directory),
    id: String(row.id),
    model: modelId(row.model),
    parentId: str(row.parent_id),
    title: str(row.title),
    updated: num(row.time_updated),
    version: str(row.version),
  }
}

/**
 * The sessions' messages in one statement (the adapter gets a fresh handle per read, so every
 * statement is compiled anew: batching keeps that to a handful per read, not a few per session).
 * Every message when most sessions are wanted, else those of the listed sessions.
 */
function readMessages(
  db: ReadonlyDb,
  s: Schema,
  ids: readonly string[],
  all: boolean,
): {bySession: Map<string, OcMessage[]>; bad: Map<string, number>} {
  const m = s.message!
  const where = all ? '' : 'WHERE session_id IN (SELECT value FROM json_each(?))'
  // Message records are small (parts carry the content): parsing them here is cheaper than
  // asking SQLite for each field. No ORDER BY: a plain scan reads the table in storage order, and
  // each session's list is sorted below.
  const rows = db.all(
    `SELECT session_id AS sid, id, ${pick(m, 'time_created')} AS tc, ${pick(m, 'time_updated')} AS tu, data
     FROM message ${where}`,
    ...(all ? [] : [JSON.stringify(ids)]),
  )
  const bySession = new Map<string, OcMessage[]>()
  const bad = new Map<string, number>()
  for (const r of rows) {
    const sid = String(r.sid)
    let j: unknown = null
    try {
      j = typeof r.data === 'string' ? JSON.parse(r.data) : null
    } catch {
      j = null
    }

    const message =
      typeof j === 'object' && j !== null && !Array.isArray(j) ? messageRecord(String(r.id), j as Record<string, unknown>) : null
    if (message === null) {
      bad.set(sid, (bad.get(sid) ?? 0) + 1)
      continue
    }

    let list = bySession.get(sid)
    if (!list) bySession.set(sid, (list = []))
    const created = message.created ?? num(r.tc)
    list.push({...message, created, updated: num(r.tu) ?? message.updated ?? created})
  }

  for (const list of bySession.values()) list.sort(byTime)
  return {bad, bySession}
}

/** The parts of the listed messages, in one statement; `textOnly` keeps only text parts. */
function readParts(
  db: ReadonlyDb,
  s: Schema,
  messageIds: readonly string[],
  textOnly: boolean,
): {byMessage: Map<string, OcPart[]>; bad: Map<string, number>} {
  const byMessage = new Map<string, OcPart[]>()
  const bad = new Map<string, number>()
  if (messageIds.length === 0) return {bad, byMessage}
  const p = s.part!
  const rows = db.all(
    `SELECT mid, id, tu,
       j IS NULL AS bad,
       json_extract(j, '$.type') AS type,
       json_extract(j, '$.tool') AS tool,
       json_extract(j, '$.state.status') AS status,
       substr(json_extract(j, '$.text'), 1, ${MAX_ASSISTANT_TEXT + 1}) AS text,
       json_extract(j, '$.synthetic') AS synthetic,
       json_extract(j, '$.state.input.questions[0].question') AS question,
       CASE WHEN json_extract(j, '$.state.status') = 'error' THEN substr(json_extract(j, '$.state.error'), 1, 300) END AS err,
       coalesce(json_extract(j, '$.state.time.end'), json_extract(j, '$.state.time.start'),
                json_extract(j, '$.time.end'), json_extract(j, '$.time.start')) AS at
     FROM (SELECT message_id AS mid, id, ${pick(p, 'time_updated')} AS tu, CASE WHEN json_valid(data) THEN data END AS j
           FROM part WHERE message_id IN (SELECT value FROM json_each(?)))
     ${textOnly ? `WHERE json_extract(j, '$.type') = 'text'` : ''}
     ORDER BY mid, id`,
    JSON.stringify(messageIds),
  )
  for (const r of rows) {
    const messageId = String(r.mid)
    const type = str(r.type)
    if (num(r.bad) === 1 || type === null) {
      bad.set(messageId, (bad.get(messageId) ?? 0) + 1)
      continue
    }

    const tool = str(r.tool)
    let list = byMessage.get(messageId)
    if (!list) byMessage.set(messageId, (list = []))
    list.push({
      at: num(r.at) ?? num(r.tu),
      error: str(r.err),
      id: String(r.id),
      messageId,
      status: str(r.status),
      synthetic: num(r.synthetic) === 1,
      text: tool === 'question' ? firstLine(str(r.question) ?? '', 300) : str(r.text),
      tool,
      type,
    })
  }

  return {bad, byMessage}
}

function needsFirstPrompt(session: OcSession): boolean {
  const title = session.title?.trim() ?? ''
  return title === '' || isPlaceholderTitle(title)
}

/** Read and summarize these sessions: a handful of statements however many there are. */
function readSessions(db: ReadonlyDb, s: Schema, path: string, sessions: readonly OcSession[], all: boolean): Contribution[] {
  const ids = sessions.map((x) => x.id)
  const msgs = s.message ? readMessages(db, s, ids, all) : {bad: new Map<string, number>(), bySession: new Map<string, OcMessage[]>()}
  const lastAssistant = new Map<string, string>()
  const firstUser = new Map<string, string>()
  for (const session of sessions) {
    const list = msgs.bySession.get(session.id) ?? []
    const last = list.findLast((m) => m.role === 'assistant')
    if (last) lastAssistant.set(session.id, last.id)
    const first = list.find((m) => m.role === 'user')
    if (first && needsFirstPrompt(session)) firstUser.set(session.id, first.id)
  }

  const parts = s.part ? readParts(db, s, [...lastAssistant.values()], false) : null
  const prompts = s.part ? readParts(db, s, [...firstUser.values()], true) : null
  const refs = refsFor(path)
  return sessions.map((session) => {
    const la = lastAssistant.get(session.id)
    const fu = firstUser.get(session.id)
    let firstPrompt: string | null = null
    if (fu && prompts) {
      const text = (prompts.byMessage.get(fu) ?? [])
        .filter((p) => !p.synthetic && p.text !== null)
        .map((p) => p.text!)
        .join('\n')
      firstPrompt = firstLine(text)
    }

    const bad = (msgs.bad.get(session.id) ?? 0) + (la && parts ? (parts.bad.get(la) ?? 0) : 0)
    const summary = summarize({
      firstPrompt,
      messages: msgs.bySession.get(session.id) ?? [],
      parseErrors: bad,
      parts: la && parts ? (parts.byMessage.get(la) ?? []) : [],
      refs,
      session,
    })
    const extra: DbFacts = {
      archived: session.archived !== null && session.archived > 0,
      compactions: summary.compactions,
      finish: summary.finish,
      opencode: 'db',
      providerID: summary.providerID,
      tail: summary.tail,
      version: session.version,
    }
    return {
      extra,
      facts: summary.facts,
      // Every OpenCode process holds the one database open, whatever session it shows: holding it ties no process to this session.
      heldAt: [],
      nativeId: session.id,
      priority: 0,
    }
  })
}

/** Every session in the database, one contribution each. */
export function readOpencodeDb(db: ReadonlyDb, path: string): Contribution[] {
  const s = probe(db)
  if (!s) return []
  const c = s.session
  const rows = db.all(
    `SELECT id, ${pick(c, 'parent_id')} AS parent_id, ${pick(c, 'directory')} AS directory, ${pick(c, 'title')} AS title,
       ${pick(c, 'time_created')} AS time_created, ${pick(c, 'time_updated')} AS time_updated,
       ${pick(c, 'time_compacting')} AS time_compacting, ${pick(c, 'time_archived')} AS time_archived,
       ${pick(c, 'model')} AS model, ${pick(c, 'version')} AS version
     FROM ${ident(s.sessionTable)}`,
  )
  const signatures = new Map<string, string>()
  if (s.message) {
    // (session_id, time_created) is OpenCode's covering index: no row is read.
    const latest = s.message.has('time_created') ? 'max(time_created)' : 'max(rowid)'
    for (const r of db.all(`SELECT session_id AS sid, count(*) AS n, ${latest} AS mu FROM message GROUP BY session_id`)) {
      signatures.set(String(r.sid), `${String(r.n)}:${String(r.mu)}`)
    }
  }

  const before = CACHE.get(path)
  const after = new Map<string, Cached>()
  // One slot per session, in the database's order; the ones not answered from the cache are read below.
  const out: (Contribution | undefined)[] = []
  const todo: {session: OcSession; sig: string; slot: number}[] = []
  for (const row of rows) {
    if (str(row.id) === null) continue
    const session = sessionOf(row)
    const sig = JSON.stringify([row, signatures.get(session.id) ?? ''])
    const hit = before?.get(session.id)
    if (hit && hit.sig === sig) {
      after.set(session.id, hit)
      out.push(hit.contribution)
    } else {
      todo.push({session, sig, slot: out.length})
      out.push(undefined)
    }
  }

  if (todo.length > 0) {
    // Most of the database wanted (a first read): one pass over every message beats a lookup each.
    const all = todo.length * 2 > rows.length
    const read = readSessions(
      db,
      s,
      path,
      todo.map((x) => x.session),
      all,
    )
    for (const [i, contribution] of read.entries()) {
      const {session, sig, slot} = todo[i]!
      out[slot] = contribution
      if (contribution.facts.settled === true) after.set(session.id, {contribution, sig})
    }
  }

  CACHE.delete(path)
  CACHE.set(path, after)
  while (CACHE.size > MAX_CACHED_DBS) CACHE.delete(CACHE.keys().next().value!)
  return out.filter((c): c is Contribution => c !== undefined)
}
