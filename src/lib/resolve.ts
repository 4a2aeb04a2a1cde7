import {resolvePrefix, shortId} from '../core/model/ids.js'
import type {Store} from '../core/store/store.js'
import {CastError} from './base-command.js'
import {EXIT} from './exit-codes.js'
import {oneLine} from './sanitize.js'

/**
 * Resolve what the user typed to one session id: an exact id or native id, or a unique prefix of
 * at least 4 characters. Unknown → exit 3 with the nearest matches; ambiguous → exit 4 listing them.
 */
export function resolveSession(store: Store, query: string): string {
  const candidates = store.sessionIds()
  let r = resolvePrefix(query.trim(), candidates)
  if (r.kind === 'one') {
    // An exact match on one field that is also a prefix of ANOTHER session's other field (one
    // session's native id, another's cast id) is ambiguous: an agent names its sessions, so a
    // native id may be made to look like the start of someone else's cast id.
    const typed = query.trim()
    const lower = typed.toLowerCase()
    const one = candidates.find((c) => c.id === (r as {id: string}).id)
    const byNative = one !== undefined && one.nativeId === typed && one.id !== lower
    const byId = one !== undefined && one.id === lower && one.nativeId !== typed
    const others = candidates.filter(
      (c) =>
        c.id !== one?.id &&
        ((byNative && c.id.startsWith(lower)) || (byId && (c.nativeId.startsWith(typed) || c.nativeId.toLowerCase().startsWith(lower)))),
    )
    if (typed.length < 4 || others.length === 0) return r.id
    r = {kind: 'many', matches: [...new Set([r.id, ...others.map((c) => c.id)])].sort()}
  }

  if (r.kind === 'many') {
    const list = r.matches.slice(0, 10)
    const more = r.matches.length > list.length ? [`… and ${r.matches.length - list.length} more`] : []
    throw new CastError(
      `"${query}" matches ${r.matches.length} sessions; type more of the id, or one of these short ids:`,
      EXIT.AMBIGUOUS,
      [...describe(store, list), ...more],
    )
  }

  const hint = query.trim().length < 4 ? ' (a prefix needs at least 4 characters)' : ''
  const near = r.nearest.length > 0 ? ['Nearest:', ...describe(store, r.nearest)] : ['Run "cast sessions --all" to see every session.']
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
