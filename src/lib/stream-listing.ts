/**
 * `cast sessions --json --all` streamed (issue 16 point 4): the same bytes as
 * `JSON.stringify(buildListing(...).listing, null, 2)`, written a chunk of rows at a time, so memory
 * stays flat as the store grows. Two passes over the store, CHUNK rows at a time: the first keeps
 * per row only what the counts and the order need; the second loads the listed rows again in
 * display order and writes them.
 */
import {tally} from '../core/model/tally.js'
import {sameIdentity} from '../core/model/ownership.js'
import {TIME_LIMITS} from '../core/model/types.js'
import {inboxCandidates, sessionIdsInOrder} from '../core/store/listing.js'
import type {SessionRow, Store} from '../core/store/store.js'
import {buildListing, isLive, isRowQuiet, type ListFilters, type Listing, matchesFilters, sessionJson, sortRows} from './views.js'

const CHUNK = 500

/** Write the listing with `write` (strings of at most a chunk of rows); returns how many rows it listed. */
export function streamListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  write: (chunk: string) => void,
  chunk = CHUNK,
): number {
  const ids = sessionIdsInOrder(store)
  const counted: Parameters<typeof tally>[0][number][] = []
  // What sortRows reads of a row, and nothing else.
  const keys: SessionRow[] = []
  for (let i = 0; i < ids.length; i += chunk) {
    for (const r of store.loadSessions(ids.slice(i, i + chunk))) {
      if (!matchesFilters(r, me, now, f)) continue
      counted.push({bucket: r.bucket, live: isLive(r), pinned: r.records.pinned, quiet: isRowQuiet(r, now), state: r.state})
      if (r.bucket === 'folded' || (!f.all && (r.bucket === 'dismissed' || r.bucket === 'hidden'))) continue
      keys.push({
        bucket: r.bucket,
        facts: {lastActivityAt: r.facts.lastActivityAt},
        id: r.id,
        reason: r.reason,
        records: {deferredAt: r.records.deferredAt},
        stateSince: r.stateSince,
      } as unknown as SessionRow)
    }
  }

  const order = sortRows(keys).map((k) => k.id)
  const head: Omit<Listing, 'sessions'> = {counts: tally(counted), generated_at: new Date(now).toISOString(), me, older_hidden: 0}
  const open = JSON.stringify({...head, sessions: []}, null, 2)
  if (order.length === 0) {
    write(open + '\n')
    return 0
  }

  // `"sessions": []\n}` becomes `"sessions": [\n    {…},\n    {…}\n  ]\n}`.
  write(open.slice(0, open.lastIndexOf('[') + 1))
  let first = true
  for (let i = 0; i < order.length; i += chunk) {
    let out = ''
    for (const r of store.loadSessions(order.slice(i, i + chunk))) {
      out += (first ? '\n    ' : ',\n    ') + JSON.stringify(sessionJson(r, me, now), null, 2).replaceAll('\n', '\n    ')
      first = false
    }

    write(out)
  }

  write('\n  ]\n}\n')
  return order.length
}

/**
 * The default inbox (no --all, no filter) from the rows that can be in it (issue 16 point 2: a
 * no-op `cast sessions` reads only the rows it prints): the same listing as
 * `buildListing([...store.loadSessions(), ...remote], …)`, with the older rows only counted.
 * Null when filters are set (the full read then).
 */
export function inboxListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  remote: readonly SessionRow[],
): ReturnType<typeof buildListing> | null {
  if (
    f.all ||
    f.team ||
    (f.agent && f.agent.length > 0) ||
    f.cwd ||
    (f.label && f.label.length > 0) ||
    f.quiet ||
    (f.states && f.states.length > 0)
  )
    return null
  const since = now - (f.recencyMs ?? TIME_LIMITS.RECENCY_WINDOW_MS)
  const {ids, olderByRunner} = inboxCandidates(store, since)
  const out = buildListing([...store.loadSessions(ids), ...remote], me, now, f)
  // The rest are out of the inbox; `--all` lists those nobody owns that no one else runs.
  for (const [runner, n] of olderByRunner) if (runner === null || sameIdentity(runner, me)) out.listing.older_hidden += n
  return out
}
