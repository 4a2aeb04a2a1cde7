import {resolvePrefix, resolveTyped, shortId} from '../../core/model/ids.js'
import type {Store} from '../../core/store/store.js'
import {CastError} from './cast-error.js'
import {EXIT} from './exit-codes.js'
import {oneLine} from '../../core/model/sanitize.js'

/**
 * Resolve what the user typed to one session id: an exact id or native id, or a unique prefix of
 * at least 4 characters. Unknown → exit 3 with the nearest matches; ambiguous → exit 4 listing them.
 */
export function resolveSession(store: Store, query: string): string {
  // Only the ids that match decide (an exact or a prefix match); every id is read only to name
  // the nearest ones when nothing matches.
  const r = resolveTyped(query, store.sessionIdCandidates(query.trim()))
  if (r.kind === 'one') return r.id
  if (r.kind === 'many') {
    const list = r.matches.slice(0, 10)
    const more = r.matches.length > list.length ? [`… and ${r.matches.length - list.length} more`] : []
    throw new CastError(
      `"${query}" matches ${r.matches.length} sessions; type more of the id, or one of these short ids:`,
      EXIT.AMBIGUOUS,
      [...describe(store, list), ...more],
    )
  }

  const all = resolvePrefix(query.trim(), store.sessionIds())
  const nearest = all.kind === 'none' ? all.nearest : []
  const hint = query.trim().length < 4 ? ' (a prefix needs at least 4 characters)' : ''
  const near = nearest.length > 0 ? ['Nearest:', ...describe(store, nearest)] : ['Run "cast sessions --all" to see every session.']
  throw new CastError(`No session matches "${query}"${hint}.`, EXIT.NOT_FOUND, near)
}

/** One line per session a person can tell apart: short id, title, agent and the agent's own id. */
function describe(store: Store, ids: readonly string[]): string[] {
  const rows = new Map(store.loadSessions(ids).map((row) => [row.id, row]))
  return ids.map((id) => {
    const row = rows.get(id)
    if (!row) return `  ${shortId(id)}`
    const title = oneLine(row.renamed ?? row.facts.title ?? '(untitled)')
    return `  ${shortId(id)}  ${title.length > 60 ? `${title.slice(0, 59)}…` : title}  (${row.agent} ${oneLine(row.nativeId)})`
  })
}

/** Resolve several sessions; all must resolve before any is acted on. */
export function resolveSessions(store: Store, queries: readonly string[]): string[] {
  return [...new Set(queries.map((q) => resolveSession(store, q)))]
}
