/**
 * `$CODEX_HOME/session_index.jsonl`: append-only `{id, thread_name, updated_at}` written by
 * `/rename`. The newest entry per id wins; an empty name clears the title. It is small and read
 * whole on change.
 *
 * Each id it names gets a contribution whose title rides in `extra` (not `facts`): the engine
 * creates a session for any contribution that sets a title, and the index outlives deleted
 * rollouts. composeCodex puts it above the transcript's first prompt.
 */
import type {Contribution} from '../../core/ingest/adapter.js'
import type {IndexFacts} from './facts.js'
import {firstLine, isRecord, str, toMs, utf8Length} from './text.js'

/** Above the transcript (0): a /rename beats the first prompt. It sets nothing but the title. */
export const INDEX_PRIORITY = 5

interface Entry {
  readonly title: string | null
  readonly updatedAt: number | null
  readonly offset: number
}

export function parseSessionIndex(path: string, text: string): Contribution[] {
  const newest = new Map<string, Entry>()
  let offset = 0
  for (const line of text.split('\n')) {
    const start = offset
    offset += utf8Length(line) + 1
    if (line.trim().length === 0) continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      continue
    }

    if (!isRecord(value)) continue
    const id = str(value.id)
    if (id === null) continue
    const name = typeof value.thread_name === 'string' ? value.thread_name : null
    const entry: Entry = {offset: start, title: name === null ? null : firstLine(name), updatedAt: toMs(value.updated_at)}
    const seen = newest.get(id)
    // Later lines are newer, unless both carry a time and this one is strictly older.
    if (seen && seen.updatedAt !== null && entry.updatedAt !== null && entry.updatedAt < seen.updatedAt) continue
    newest.set(id, entry)
  }

  const out: Contribution[] = []
  for (const [nativeId, entry] of newest) {
    if (entry.title === null) continue
    const extra: IndexFacts = {codex: 'index', offset: entry.offset, ref: path, title: entry.title}
    out.push({extra, facts: {}, nativeId, priority: INDEX_PRIORITY})
  }

  return out
}
