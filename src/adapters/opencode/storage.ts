/**
 * Reading OpenCode's storage/ JSON files (before 1.2; docs/agents/opencode.md). Each object is its own
 * file, rewritten whole when it changes, so the engine re-reads a file on change and this module
 * turns it into at most one contribution; compose.ts puts a session back together.
 *
 * IDs come from the paths, as OpenCode's own JSON→SQLite migration does (a session moved between
 * project folders keeps a stale projectID inside): the session id is the session file's name, a
 * message's session is its folder.
 *
 * Only what decides the state is kept: the session record, every message record (small), and the
 * tool parts that are still pending or running. Text parts are not stored (1.2 migrates storage/
 * into the database and leaves the files behind, so on most machines these files are history the
 * database already holds); so in this layout the title is OpenCode's own and lastAssistantText is
 * not known.
 */
import type {Contribution, FileMatch} from '../../core/ingest/adapter.js'
import type {StorageFacts} from './facts.js'
import type {SessionFacts} from '../../core/model/types.js'
import {basename, dirname} from 'node:path'
import {firstLine, isPlaceholderTitle, messageRecord} from './model.js'
import type {OcPart, OcSession} from './model.js'

type Json = Record<string, unknown>

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

function idOf(path: string): string {
  return basename(path).replace(/\.json$/, '')
}

export function sessionRecord(id: string, j: Json): OcSession {
  const time = isRecord(j.time) ? j.time : {}
  return {
    archived: num(time.archived),
    compacting: num(time.compacting),
    created: num(time.created),
    directory: str(j.directory),
    id,
    model: null,
    parentId: str(j.parentID),
    title: str(j.title),
    updated: num(time.updated),
    version: str(j.version),
  }
}

/** A tool part still pending or running, or null for every other part. */
export function activePart(id: string, messageId: string, j: Json): OcPart | null {
  if (j.type !== 'tool' || !isRecord(j.state)) return null
  const status = str(j.state.status)
  if (status !== 'pending' && status !== 'running') return null
  const tool = str(j.tool)
  const time = isRecord(j.state.time) ? j.state.time : {}
  let text: string | null = null
  if (tool === 'question' && isRecord(j.state.input) && Array.isArray(j.state.input.questions)) {
    const q: unknown = j.state.input.questions[0]
    if (isRecord(q) && typeof q.question === 'string') text = firstLine(q.question, 300)
  }

  return {at: num(time.end) ?? num(time.start), id, messageId, status, synthetic: false, text, tool, type: 'tool'}
}

/** Parse one storage file. Throws on a file caught mid-write (the engine counts it and re-reads on the next change). */
export function parseStorageFile(path: string, text: string, match: FileMatch & {kind: 'whole'}): Contribution[] {
  const j = JSON.parse(text) as unknown
  if (!isRecord(j)) throw new Error(`not an object: ${path}`)
  const id = idOf(path)
  switch (match.role) {
    case 'session': {
      const session = sessionRecord(id, j)
      const source = {kind: 'storage', ref: path}
      let title = session.title
      if (title !== null && isPlaceholderTitle(title)) title = null
      const facts: Partial<SessionFacts> = {
        createdAt: session.created,
        cwd: session.directory,
        parentNativeId: session.parentId,
        sources: {cwd: source},
        title,
      }
      const extra: StorageFacts = {opencode: 'storage', record: 'session', ref: path, session}
      return [{extra, facts, nativeId: id, priority: 0}]
    }

    case 'message': {
      const message = messageRecord(id, j)
      if (message === null) return []
      const sessionId = basename(dirname(path))
      const extra: StorageFacts = {message, opencode: 'storage', record: 'message', ref: path}
      return [{extra, facts: {}, nativeId: sessionId, priority: 0}]
    }

    case 'part': {
      const sessionId = str(j.sessionID)
      const part = activePart(id, basename(dirname(path)), j)
      if (part === null || sessionId === null) return []
      const extra: StorageFacts = {opencode: 'storage', part, record: 'part', ref: path}
      return [{extra, facts: {}, nativeId: sessionId, priority: 0}]
    }

    default:
      return []
  }
}
