/**
 * Cursor agent's chat store, `store.db` (docs/agents.md), opened read-only by the engine.
 *
 * - `meta`: one row with key `0` whose value is hex-encoded JSON
 *   `{agentId, latestRootBlobId, name, mode, createdAt, lastUsedModel}` (older stores: plain
 *   key/value rows, which are read as such);
 * - `blobs(id, data)`: content-addressed. The root blob (`latestRootBlobId`) is protobuf: field 1
 *   repeats the message blob ids in order (32 raw bytes each), field 9 is the workspace (a path or
 *   a `file://` URL). Message blobs are JSON `{role, content}`; a user prompt wraps the typed text
 *   in `<user_query>…</user_query>` next to injected `<user_info>` context.
 *
 * Tables are probed before they are read. Roles are read with SQLite's JSON functions so a long
 * chat costs one small query, not a transfer of every blob; only the first prompt (the title)
 * and the last few messages (the state of the turn) are read whole.
 *
 * The store is weak on the present: it has no times beyond `createdAt` and says nothing of
 * permission prompts. A last assistant message with no tool call reads settled; a last user or
 * tool message, or a tool call, reads as the turn still running. Hooks sharpen it.
 */
import type {Contribution, FileMatch, ReadonlyDb} from '../../core/ingest/adapter.js'
import type {StoreFacts} from './facts.js'
import type {FactSource, SessionFacts} from '../../core/model/types.js'
import {clip, firstLine, isObject, str, toMs, type Json} from './text.js'

/** Names Cursor gives a chat before it has one. */
const PLACEHOLDER_NAMES = new Set(['', 'new agent', 'new chat', 'new conversation', 'untitled', 'untitled chat', 'untitled session'])
const CHUNK = 400
const TAIL = 4
const MAX_TEXT = 4000

export function isPlaceholderName(name: string | null): boolean {
  return name === null || PLACEHOLDER_NAMES.has(name.trim().toLowerCase())
}

function asText(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
  return null
}

/** Hex-encoded JSON, or JSON. */
export function decodeMetaValue(value: unknown): Json | null {
  const text = asText(value)?.trim()
  if (text === undefined || text === '') return null
  let json = text
  if (/^[0-9a-fA-F]+$/.test(text) && text.length % 2 === 0) json = Buffer.from(text, 'hex').toString('utf8')
  try {
    const doc = JSON.parse(json) as unknown
    return isObject(doc) ? doc : null
  } catch {
    return null
  }
}

/** The `meta` table as one object: the hex JSON row, else the key/value rows. */
export function readMeta(rows: readonly Record<string, unknown>[]): Json {
  const row0 = rows.find((r) => String(r['key']) === '0')
  const decoded = row0 === undefined ? null : decodeMetaValue(row0['value'])
  if (decoded !== null) return decoded
  const out: Json = {}
  for (const r of rows) {
    const key = str(r['key'])
    if (key === null) continue
    const value = r['value']
    out[key] = asText(value) ?? value
  }

  return out
}

function varint(buf: Uint8Array, pos: number): [number, number] | null {
  let value = 0
  let mul = 1
  for (let i = pos; i < buf.length && i < pos + 10; i++) {
    const b = buf[i]!
    value += (b & 0x7f) * mul
    if ((b & 0x80) === 0) return [value, i + 1]
    mul *= 128
  }

  return null
}

/** The root blob: message ids (field 1) in order and the workspace (field 9). Stops at malformed bytes. */
export function readRoot(data: Uint8Array): {ids: string[]; workspace: string | null} {
  const ids: string[] = []
  let workspace: string | null = null
  let pos = 0
  while (pos < data.length) {
    const tag = varint(data, pos)
    if (tag === null) break
    const [key, afterTag] = tag
    const field = Math.floor(key / 8)
    const wire = key % 8
    pos = afterTag
    if (wire === 0) {
      const v = varint(data, pos)
      if (v === null) break
      pos = v[1]
    } else if (wire === 1) {
      pos += 8
    } else if (wire === 5) {
      pos += 4
    } else if (wire === 2) {
      const len = varint(data, pos)
      if (len === null) break
      const start = len[1]
      const end = start + len[0]
      if (end > data.length) break
      const bytes = data.subarray(start, end)
      if (field === 1) ids.push(Buffer.from(bytes).toString('hex'))
      else if (field === 9) workspace = Buffer.from(bytes).toString('utf8')
      pos = end
    } else {
      break
    }
  }

  return {ids, workspace}
}

/** A workspace as a path: `file:///Users/a/My%20Project` -> `/Users/a/My Project`. */
export function workspacePath(workspace: string | null): string | null {
  if (workspace === null || workspace.trim() === '') return null
  if (!workspace.startsWith('file://')) return workspace
  try {
    return decodeURIComponent(new URL(workspace).pathname)
  } catch {
    return null
  }
}

interface Part {
  readonly text: string
  readonly toolCall: boolean
}

function partsOf(content: unknown): Part[] {
  if (typeof content === 'string') return [{text: content, toolCall: false}]
  if (!Array.isArray(content)) return []
  const out: Part[] = []
  for (const p of content) {
    if (typeof p === 'string') out.push({text: p, toolCall: false})
    else if (isObject(p)) {
      const type = str(p['type']) ?? ''
      const toolCall = /tool[-_]?(call|use)/i.test(type) && !/result/i.test(type)
      out.push({text: type === 'text' && typeof p['text'] === 'string' ? p['text'] : '', toolCall})
    }
  }

  return out
}

/** What the user typed: the `<user_query>` part when there is one, else text that is not injected context. */
export function promptText(content: unknown): string | null {
  const text = partsOf(content)
    .map((p) => p.text)
    .join('\n')
  const q = /<user_query>([\s\S]*?)(?:<\/user_query>|$)/.exec(text)
  if (q !== null) return q[1]?.trim() || null
  const trimmed = text.trim()
  if (trimmed === '' || trimmed.startsWith('<')) return null
  return trimmed
}

interface Row {
  readonly id: string
  readonly role: string | null
  /** A user message with something the user typed (not only injected context). */
  readonly prompt: boolean
}

function rolesOf(db: ReadonlyDb, ids: readonly string[]): Map<string, Row> {
  const out = new Map<string, Row>()
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK)
    const rows = db.all(
      `SELECT id,
              CASE WHEN json_valid(CAST(data AS TEXT)) THEN json_extract(CAST(data AS TEXT), '$.role') END AS role,
              instr(CAST(data AS TEXT), '<user_query>') > 0 AS q,
              CASE WHEN json_valid(CAST(data AS TEXT)) AND json_type(CAST(data AS TEXT), '$.content') = 'text'
                   THEN substr(ltrim(json_extract(CAST(data AS TEXT), '$.content')), 1, 1) END AS head,
              CASE WHEN json_valid(CAST(data AS TEXT)) AND json_type(CAST(data AS TEXT), '$.content') = 'array'
                   THEN substr(ltrim(coalesce(json_extract(CAST(data AS TEXT), '$.content[0].text'), '')), 1, 1) END AS head0
         FROM blobs WHERE id IN (${chunk.map(() => '?').join(',')})`,
      ...chunk,
    )
    for (const r of rows) {
      const id = String(r['id'])
      const role = str(r['role'])
      const head = str(r['head']) ?? str(r['head0'])
      const prompt = role === 'user' && (Number(r['q']) === 1 || (head !== null && head !== '<'))
      out.set(id, {id, prompt, role})
    }
  }

  return out
}

function blobJson(db: ReadonlyDb, id: string): Json | null {
  const row = db.all('SELECT data FROM blobs WHERE id = ?', id)[0]
  const text = row === undefined ? null : asText(row['data'])
  if (text === null) return null
  try {
    const doc = JSON.parse(text) as unknown
    return isObject(doc) ? doc : null
  } catch {
    return null
  }
}

/** Title candidate: the first prompt. */
function firstPromptOf(db: ReadonlyDb, ordered: readonly Row[]): string | null {
  const first = ordered.find((r) => r.prompt)
  if (first === undefined) return null
  const doc = blobJson(db, first.id)
  const text = doc === null ? null : promptText(doc['content'])
  return text === null ? null : firstLine(text)
}

/** The state of the turn, from the last few messages: settled, and the newest reply text. */
function turnOf(db: ReadonlyDb, ordered: readonly Row[]): {settled: boolean; lastAssistantText: string | null} {
  let settled = false
  const last = ordered.at(-1) ?? null
  for (const r of ordered.slice(-TAIL).reverse()) {
    if (r.role !== 'assistant') continue
    const doc = blobJson(db, r.id)
    const parts = doc === null ? [] : partsOf(doc['content'])
    const text = parts
      .map((p) => p.text)
      .join('\n')
      .trim()
    if (r === last) settled = !parts.some((p) => p.toolCall)
    if (text !== '') return {lastAssistantText: clip(text, MAX_TEXT), settled}
  }

  return {lastAssistantText: null, settled}
}

export function readCursorStore(db: ReadonlyDb, path: string, match: FileMatch & {kind: 'sqlite'}): Contribution[] {
  const metaCols = db.columns('meta')
  if (!metaCols.includes('key') || !metaCols.includes('value')) return []
  const meta = readMeta(db.all('SELECT key, value FROM meta'))
  const nativeId = match.nativeId ?? str(meta['agentId'])
  if (nativeId === null) return []
  const source: FactSource = {kind: 'sqlite', ref: path}

  let ids: string[] = []
  let workspace: string | null = null
  const rootId = str(meta['latestRootBlobId'])
  const blobCols = db.columns('blobs')
  const hasBlobs = blobCols.includes('id') && blobCols.includes('data')
  if (hasBlobs && rootId !== null) {
    const row = db.all('SELECT data FROM blobs WHERE id = ?', rootId)[0]
    const data = row?.['data']
    if (data instanceof Uint8Array) ({ids, workspace} = readRoot(data))
  }

  const roles = hasBlobs && ids.length > 0 ? rolesOf(db, ids) : new Map<string, Row>()
  const ordered = ids.map((id) => roles.get(id)).filter((r): r is Row => r !== undefined && r.role !== null && r.role !== 'system')
  const prompts = ordered.filter((r) => r.prompt).length
  const replies = ordered.filter((r) => r.role === 'assistant').length

  const firstPrompt = firstPromptOf(db, ordered)
  const last = ordered.at(-1) ?? null
  const {lastAssistantText, settled} = turnOf(db, ordered)

  const name = str(meta['name'])
  const createdAt = toMs(meta['createdAt'])
  const model = str(meta['lastUsedModel']) ?? str(meta['model'])
  const cwd = workspacePath(workspace) ?? str(meta['cwd'])
  const sources: Record<string, FactSource> = {messages: source, settled: source, turnIndex: source}
  for (const [fact, known] of [
    ['model', model],
    ['createdAt', createdAt],
    ['cwd', cwd],
    ['lastAssistantText', lastAssistantText],
  ] as const) {
    if (known !== null) sources[fact] = source
  }

  const facts: Partial<SessionFacts> = {
    createdAt,
    cwd,
    lastActivityAt: createdAt,
    lastAssistantText,
    messages: prompts + replies,
    model,
    settled: prompts > 0 && settled,
    sources,
    title: firstPrompt,
    turnIndex: prompts,
  }
  const extra: StoreFacts = {
    lastRole: last?.role ?? null,
    messageBlobs: ids.length,
    mode: str(meta['mode']),
    name: isPlaceholderName(name) ? null : (firstLine(name ?? '') ?? null),
    ref: path,
    role: 'store',
  }
  return [{extra, facts, nativeId, priority: 0}]
}
