/**
 * The newer sidecar `meta.json` next to a chat's store.db: `{schemaVersion, createdAtMs,
 * updatedAtMs, hasConversation, isSubagent, title, cwd}`. Rewritten whole; its `updatedAtMs` is
 * the only activity time Cursor's files give (the store has none beyond createdAt).
 */
import type {Contribution} from '../../core/ingest/adapter.js'
import type {MetaFacts} from './facts.js'
import type {FactSource, SessionFacts} from '../../core/model/types.js'
import {firstLine, isObject, str, toMs} from './text.js'

/** Throws on a file caught mid-write (the engine counts it and reads it again on the next change). */
export function parseCursorMeta(path: string, text: string, nativeId: string): Contribution[] {
  const doc = JSON.parse(text) as unknown
  if (!isObject(doc)) return []
  const source: FactSource = {kind: 'meta', ref: path}
  const cwd = str(doc['cwd'])
  const createdAt = toMs(doc['createdAtMs']) ?? toMs(doc['createdAt'])
  const updatedAt = toMs(doc['updatedAtMs']) ?? toMs(doc['updatedAt'])
  const title = typeof doc['title'] === 'string' ? firstLine(doc['title']) : null
  const sources: Record<string, FactSource> = {}
  const facts: {-readonly [K in keyof SessionFacts]?: SessionFacts[K]} = {sources}
  if (cwd !== null) {
    facts.cwd = cwd
    sources['cwd'] = source
  }

  if (createdAt !== null) {
    facts.createdAt = createdAt
    sources['createdAt'] = source
  }

  const extra: MetaFacts = {
    hasConversation: typeof doc['hasConversation'] === 'boolean' ? doc['hasConversation'] : null,
    isSubagent: doc['isSubagent'] === true,
    ref: path,
    role: 'meta',
    title,
    updatedAt,
  }
  return [{extra, facts, nativeId: str(doc['agentId']) ?? nativeId, priority: 5}]
}
