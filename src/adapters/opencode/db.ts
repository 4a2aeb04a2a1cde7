/**
 * Reading OpenCode's SQLite database (≥ 1.2; agent-formats §3.1, §3.2). The engine opens it
 * read-only and hands over a ReadonlyDb whenever the file changes; this module only queries.
 *
 * The schema moves fast (1.2 → 1.1x extra tables → 2.x `session_v2`), so tables and columns are
 * probed first (`sqlite_master`, PRAGMA table_info) and a missing column reads as NULL. JSON is
 * taken apart inside SQLite (`json_extract`, guarded by `json_valid`), so large tool outputs and
 * system prompts never cross into JavaScript.
 *
 * Incremental by `time_updated`: one grouped pass over `message` gives every session a signature
 * (its row, message count and latest message `time_updated`). A settled session whose signature
 * has not moved since the last read in this process is answered from a small per-database cache;
 * only changed or unsettled sessions (a turn in progress can change through its parts alone) are
 * queried again, each through the session and message indexes. The cache holds one contribution
 * per session of the database, is replaced on every read, and gives the same answer a cold read
 * would.
 */
import type {Contribution, ReadonlyDb} from '../../core/ingest/adapter.js'
import type {FactSource} from '../../core/model/types.js'
import {MAX_ASSISTANT_TEXT, firstLine, summarize} from './model.js'
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
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as {id?: unknown}).id === 'string') return (parsed as {id: string}).id
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

function readMessages(db: ReadonlyDb, s: Schema, sessionId: string): {messages: OcMessage[]; bad: number} {
  const m = s.message!
  const order = m.has('time_created') ? 'tc, id' : 'id'
  const rows = db.all(
    `SELECT id, tc, tu,
       j IS NULL AS bad,
       json_extract(j, '$.role') AS role,
       json_extract(j, '$.time.created') AS created,
       json_extract(j, '$.time.completed') AS completed,
       json_extract(j, '$.finish') AS finish,
       json_extract(j, '$.error.name') AS error_name,
       json_extract(j, '$.error.data.message') AS error_message,
       coalesce(json_extract(j, '$.modelID'), json_extract(j, '$.model.modelID')) AS model_id,
       coalesce(json_extract(j, '$.providerID'), json_extract(j, '$.model.providerID')) AS provider_id,
       json_type(j, '$.summary') = 'true' AS summary
     FROM (SELECT id, ${pick(m, 'time_created')} AS tc, ${pick(m, 'time_updated')} AS tu,
             CASE WHEN json_valid(data) THEN data END AS j
           FROM message WHERE session_id = ?)
     ORDER BY ${order}`,
    sessionId,
  )
  const messages: OcMessage[] = []
  let bad = 0
  for (const r of rows) {
    const role = str(r.role)
    if (num(r.bad) === 1 || role === null) {
      bad += 1
      continue
    }

    const created = num(r.created) ?? num(r.tc)
    messages.push({
      completed: num(r.completed),
      created,
      errorName: str(r.error_name),
      errorText: str(r.error_message),
      finish: str(r.finish),
      id: String(r.id),
      modelID: str(r.model_id),
      providerID: str(r.provider_id),
      role,
      summary: num(r.summary) === 1,
      updated: num(r.tu) ?? num(r.completed) ?? created,
    })
  }

  return {bad, messages}
}

function readParts(db: ReadonlyDb, s: Schema, messageId: string, textOnly: boolean): {parts: OcPart[]; bad: number} {
  const p = s.part!
  const rows = db.all(
    `SELECT id, tu,
       j IS NULL AS bad,
       json_extract(j, '$.type') AS type,
       json_extract(j, '$.tool') AS tool,
       json_extract(j, '$.state.status') AS status,
       substr(json_extract(j, '$.text'), 1, ${MAX_ASSISTANT_TEXT + 1}) AS text,
       json_extract(j, '$.synthetic') AS synthetic,
       json_extract(j, '$.state.input.questions[0].question') AS question,
       coalesce(json_extract(j, '$.state.time.end'), json_extract(j, '$.state.time.start'),
                json_extract(j, '$.time.end'), json_extract(j, '$.time.start')) AS at
     FROM (SELECT id, ${pick(p, 'time_updated')} AS tu, CASE WHEN json_valid(data) THEN data END AS j
           FROM part WHERE message_id = ?)
     ${textOnly ? `WHERE json_extract(j, '$.type') = 'text'` : ''}
     ORDER BY id`,
    messageId,
  )
  const parts: OcPart[] = []
  let bad = 0
  for (const r of rows) {
    const type = str(r.type)
    if (num(r.bad) === 1 || type === null) {
      bad += 1
      continue
    }

    const tool = str(r.tool)
    parts.push({
      at: num(r.at) ?? num(r.tu),
      id: String(r.id),
      messageId,
      status: str(r.status),
      synthetic: num(r.synthetic) === 1,
      text: tool === 'question' ? firstLine(str(r.question) ?? '', 300) : str(r.text),
      tool,
      type,
    })
  }

  return {bad, parts}
}

function readSession(db: ReadonlyDb, s: Schema, path: string, session: OcSession): Contribution {
  let messages: OcMessage[] = []
  let parts: OcPart[] = []
  let bad = 0
  let firstPrompt: string | null = null
  if (s.message) {
    const r = readMessages(db, s, session.id)
    messages = r.messages
    bad += r.bad
  }

  if (s.part) {
    const lastAssistant = messages.findLast((m) => m.role === 'assistant')
    if (lastAssistant) {
      const r = readParts(db, s, lastAssistant.id, false)
      parts = r.parts
      bad += r.bad
    }

    const title = session.title?.trim() ?? ''
    if (title === '' || /^(?:New session|Child session) - \d{4}-/.test(title)) {
      const firstUser = messages.find((m) => m.role === 'user')
      if (firstUser) {
        const r = readParts(db, s, firstUser.id, true)
        const text = r.parts.filter((p) => !p.synthetic && p.text !== null).map((p) => p.text!).join('\n')
        firstPrompt = firstLine(text)
      }
    }
  }

  const summary = summarize({firstPrompt, messages, parseErrors: bad, parts, refs: refsFor(path), session})
  return {
    extra: {
      archived: session.archived !== null && session.archived > 0,
      compactions: summary.compactions,
      finish: summary.finish,
      opencode: 'db',
      providerID: summary.providerID,
      tail: summary.tail,
      version: session.version,
    },
    facts: summary.facts,
    nativeId: session.id,
    priority: 0,
  }
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
    const latest = s.message.has('time_updated') ? 'max(time_updated)' : 'max(rowid)'
    for (const r of db.all(`SELECT session_id AS sid, count(*) AS n, ${latest} AS mu FROM message GROUP BY session_id`)) {
      signatures.set(String(r.sid), `${String(r.n)}:${String(r.mu)}`)
    }
  }

  const before = CACHE.get(path)
  const after = new Map<string, Cached>()
  const out: Contribution[] = []
  for (const row of rows) {
    if (str(row.id) === null) continue
    const session = sessionOf(row)
    const sig = JSON.stringify([row, signatures.get(session.id) ?? ''])
    const hit = before?.get(session.id)
    if (hit && hit.sig === sig) {
      out.push(hit.contribution)
      after.set(session.id, hit)
      continue
    }

    const contribution = readSession(db, s, path, session)
    out.push(contribution)
    if (contribution.facts.settled === true) after.set(session.id, {contribution, sig})
  }

  CACHE.delete(path)
  CACHE.set(path, after)
  while (CACHE.size > MAX_CACHED_DBS) CACHE.delete(CACHE.keys().next().value!)
  return out
}
