/**
 * `cast feed` (the command is wiring): the team's recent top-level sessions
 * for a directory (or every one), newest activity first, read-only. Local rows are read a chunk
 * at a time from the recency window (src/core/store/listing.ts), so the store's size does not
 * grow the read; a joined team store adds every machine's rows.
 */
import {formatAge} from '../../core/model/durations.js'
import {shortId} from '../../core/model/ids.js'
import type {WorkState} from '../../core/model/types.js'
import {inView, type ViewFilters} from '../../core/model/view.js'
import {recentTopLevelIds} from '../../core/store/listing.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {oneLine} from '../../core/model/sanitize.js'
import {type SessionJson, sessionJson, tildify, titleOf} from './views.js'

export interface FeedJson {
  me: string
  generated_at: string
  /** The directory the feed covers; null with -g. */
  cwd: string | null
  sessions: (SessionJson & {who: string[]})[]
}

export interface FeedFilters {
  /** The directory (and the folders under it) the feed covers; null: every directory. */
  readonly cwd: string | null
  readonly agent?: readonly string[]
  readonly states?: readonly WorkState[]
  /** Only sessions carrying one of my labels L. */
  readonly label?: readonly string[]
  /** Only sessions this identity runs or owns; null: everyone's. */
  readonly member: string | null
  readonly limit: number
  readonly recencyMs: number
}

/** How many rows are loaded at a time while looking for `limit` that pass the filters. */
const CHUNK = 200

/** A session's people: its owners, else who runs it. */
export function whoOf(row: Pick<SessionRow, 'records' | 'runner'>): string[] {
  return row.records.owners.length > 0 ? [...row.records.owners] : row.runner ? [row.runner] : []
}

/** The feed's view: top level, inside the recency window, every machine's, past the filters (src/core/model/view.ts). */
export function feedView(f: FeedFilters): ViewFilters {
  return {
    agent: f.agent,
    cwd: f.cwd,
    label: f.label,
    member: f.member,
    recencyMs: f.recencyMs,
    recentOnly: true,
    states: f.states,
    team: true,
    topLevel: true,
  }
}

/** The feed's rows, newest activity first: this store's (read a chunk at a time) and the team's. */
export function feedRows(store: Store, me: string, now: number, f: FeedFilters, remote: readonly SessionRow[]): SessionRow[] {
  const view = feedView(f)
  const keep = (r: SessionRow): boolean => inView(r, me, now, view)
  const local: SessionRow[] = []
  let chunk: string[] = []
  const take = (): void => {
    for (const r of store.loadSessions(chunk)) if (local.length < f.limit && keep(r)) local.push(r)
    chunk = []
  }

  for (const id of recentTopLevelIds(store, now - f.recencyMs)) {
    chunk.push(id)
    if (chunk.length >= CHUNK) take()
    if (local.length >= f.limit) break
  }

  if (local.length < f.limit) take()
  return [...local, ...remote.filter((r) => keep(r))]
    .sort((a, b) => (b.facts.lastActivityAt ?? b.firstSeenAt) - (a.facts.lastActivityAt ?? a.firstSeenAt))
    .slice(0, f.limit)
}

export function feedJson(rows: readonly SessionRow[], me: string, now: number, cwd: string | null): FeedJson {
  return {
    cwd,
    generated_at: new Date(now).toISOString(),
    me,
    sessions: rows.map((r) => ({...sessionJson(r, me, now), who: whoOf(r)})),
  }
}

/** The human feed: a header line and a table (with a CWD column for every directory), or one line when empty. */
export async function renderFeed(
  rows: readonly SessionRow[],
  now: number,
  cwd: string | null,
  home: string,
  global: boolean,
  width: number | null = null,
): Promise<string[]> {
  const scope = cwd === null ? 'every directory' : tildify(cwd, home)
  if (rows.length === 0) return [`No recent sessions in ${scope}${global ? '' : ' (-g: every directory)'}.`]
  const {boxTable} = await import('./table.js')
  const head = ['ID', 'STATE', 'TITLE', 'WHO', 'ACTIVE', 'AGENT']
  if (cwd === null) head.push('CWD')
  const cells: string[][] = []
  for (const r of rows) {
    const line = [
      shortId(r.id),
      `${r.state}:${r.reason}`,
      titleOf(r) ?? '(untitled)',
      whoOf(r).join(', ') || '?',
      r.facts.lastActivityAt === null ? 'never' : formatAge(now - r.facts.lastActivityAt),
      r.agent,
    ]
    if (cwd === null) line.push(tildify(r.facts.cwd, home))
    cells.push(line)
  }

  // The title gives up width first, then who and the folder; on a narrow terminal the folder, the
  // agent, who and when are left out, in that order (src/lib/views/table.ts).
  const table = await boxTable(cells, {drop: [6, 5, 3, 4], flex: cwd === null ? [2, 3, 6] : [2, 3], head, max: {2: 60}, width})
  return [`cast feed · ${oneLine(scope)} · ${rows.length} session${rows.length === 1 ? '' : 's'}`, table]
}
