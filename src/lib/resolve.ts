import {resolvePrefix, resolveTyped} from '../core/model/ids.js'
import type {Store} from '../core/store/store.js'
import {CastError} from './base-command.js'
import {EXIT} from './exit-codes.js'

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
    throw new CastError(
      `"${query}" matches ${r.matches.length} sessions; type more of the id: ${list.join(', ')}${r.matches.length > list.length ? ', …' : ''}`,
      EXIT.AMBIGUOUS,
    )
  }

  const all = resolvePrefix(query.trim(), store.sessionIds())
  const nearest = all.kind === 'none' ? all.nearest : []
  const hint = query.trim().length < 4 ? ' (a prefix needs at least 4 characters)' : ''
  const near = nearest.length > 0 ? [`Nearest: ${nearest.join(', ')}`] : ['Run "cast sessions --all" to see every session.']
  throw new CastError(`No session matches "${query}"${hint}.`, EXIT.NOT_FOUND, near)
}

/** Resolve several sessions; all must resolve before any is acted on. */
export function resolveSessions(store: Store, queries: readonly string[]): string[] {
  return [...new Set(queries.map((q) => resolveSession(store, q)))]
}
