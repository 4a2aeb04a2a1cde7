/**
 * `cast sessions --json --all` streamed: the same bytes as
 * `JSON.stringify(buildListing(...).listing, null, 2)`, written a chunk of rows at a time, so memory
 * stays flat as the store grows. The counts come first in the document, so a first pass over every
 * row takes what the filters, the counts and the order need from SQL columns, without the facts
 * (store/listing.ts listingKeys); then the listed rows are loaded, CHUNK at a time in display order,
 * and written: each row's facts are read and parsed once.
 */
import {tally} from '../core/model/tally.js'
import {sameIdentity} from '../core/model/ownership.js'
import {TIME_LIMITS} from '../core/model/types.js'
import {inboxCandidates, listingKeys, sessionIdsInOrder} from '../core/store/listing.js'
import {ListingRows} from '../core/store/listing-rows.js'
import type {SessionRow, Store} from '../core/store/store.js'
import {inView} from '../core/model/view.js'
import {buildListing, isLive, isRowQuiet, type ListFilters, type Listing, sessionJson, sortRows} from './views.js'

const CHUNK = 500
/** `{"s": [row]}` stringified with 2 spaces: the row between these is indented as in the document. */
const WRAP_HEAD = '{\n  "s": [\n    '.length
const WRAP_TAIL = '\n  ]\n}'.length
const WRITE_AT = 1 << 16

/** Write the listing with `write` (strings of at most a chunk of rows); returns how many rows it listed. */
export function streamListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  write: (chunk: string) => void,
  chunk = CHUNK,
): number {
  const counted: Parameters<typeof tally>[0][number][] = []
  const keys: SessionRow[] = []
  for (const r of firstPass(store, me, chunk, f.all === true)) {
    if (!inView(r, me, now, f)) continue
    counted.push({bucket: r.bucket, live: isLive(r), pinned: r.records.pinned, quiet: isRowQuiet(r, now), state: r.state})
    if (r.bucket === 'folded' || (!f.all && (r.bucket === 'dismissed' || r.bucket === 'hidden'))) continue
    // What sortRows reads of a row, and nothing else (a full row is let go).
    keys.push({
      bucket: r.bucket,
      facts: {lastActivityAt: r.facts.lastActivityAt},
      id: r.id,
      reason: r.reason,
      records: {deferredAt: r.records.deferredAt},
      stateSince: r.stateSince,
    } as unknown as SessionRow)
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
  // One string per row, stringified inside a wrapper that puts it at the document's depth (the
  // indentation then needs no second pass), written 64 KB at a time. A chunk stringified whole was
  // faster still but left large strings for V8's large-object space, freed late (peak RSS at
  // 100,000 rows 324 MB against 199 MB so).
  const rows = new ListingRows(store, me)
  let first = true
  let out = ''
  for (let i = 0; i < order.length; i += chunk) {
    for (const r of rows.load(order.slice(i, i + chunk))) {
      const wrapped = JSON.stringify({s: [sessionJson(r, me, now)]}, null, 2)
      out += (first ? '\n    ' : ',\n    ') + wrapped.slice(WRAP_HEAD, -WRAP_TAIL)
      first = false
      if (out.length >= WRITE_AT) {
        write(out)
        out = ''
      }
    }
  }

  if (out !== '') write(out)
  write('\n  ]\n}\n')
  return order.length
}

/**
 * Every row in `loadSessions()` order with what the first pass reads: with `all`, the lean keys
 * (store/listing.ts listingKeys); without it the filters also read a row's asks (core/model/view.ts
 * outlivesRecency), so the full rows, a chunk at a time.
 */
function* firstPass(store: Store, me: string, chunk: number, all: boolean): Generator<SessionRow> {
  if (all) {
    yield* listingKeys(store, me)
    return
  }

  const ids = sessionIdsInOrder(store)
  for (let i = 0; i < ids.length; i += chunk) yield* store.loadSessions(ids.slice(i, i + chunk))
}

/**
 * The default inbox (no --all, no filter) from the rows that can be in it (a
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
