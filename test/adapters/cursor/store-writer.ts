/**
 * Write a Cursor agent `store.db` in its real shape: a `meta` row '0' holding hex-encoded JSON, and
 * `blobs` with JSON messages plus a protobuf root blob (field 1: message ids, field 9: workspace).
 */
import Database from 'better-sqlite3'
import {createHash} from 'node:crypto'
import {rmSync} from 'node:fs'

export type CursorMessage = Record<string, unknown>

export interface StoreSpec {
  readonly agentId: string
  readonly name: string
  readonly createdAt: number
  readonly model?: string
  readonly workspace?: string
  readonly messages: readonly CursorMessage[]
  readonly extraRootFields?: boolean
  readonly journal?: 'DELETE' | 'WAL'
}

function varint(n: number): Buffer {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n = Math.floor(n / 128)
  }
  out.push(n)
  return Buffer.from(out)
}

const field = (num: number, bytes: Buffer): Buffer => Buffer.concat([varint((num << 3) | 2), varint(bytes.length), bytes])

export function writeStore(
  path: string,
  {agentId, name, createdAt, model, workspace, messages, extraRootFields = true, journal = 'DELETE'}: StoreSpec,
): void {
  rmSync(path, {force: true})
  const db = new Database(path)
  db.pragma(`journal_mode = ${journal}`)
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);')
  const ids: string[] = []
  for (const m of messages) {
    const data = Buffer.from(JSON.stringify(m))
    const id = createHash('sha256').update(data).digest('hex')
    db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)').run(id, data)
    ids.push(id)
  }

  const parts = ids.map((id) => field(1, Buffer.from(id, 'hex')))
  if (extraRootFields) parts.push(Buffer.from([0x10, 0x07])) // field 2, a varint Cursor keeps there
  if (workspace) parts.push(field(9, Buffer.from(workspace)))
  const root = Buffer.concat(parts)
  const rootId = createHash('sha256').update(root).digest('hex')
  db.prepare('INSERT INTO blobs (id, data) VALUES (?, ?)').run(rootId, root)
  const meta = {agentId, latestRootBlobId: rootId, name, mode: 'default', createdAt, ...(model ? {lastUsedModel: model} : {})}
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('0', Buffer.from(JSON.stringify(meta)).toString('hex'))
  db.close()
}
