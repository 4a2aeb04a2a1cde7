/**
 * `cast sessions --json --all` streamed: the same bytes as
 * `JSON.stringify(buildListing(...).listing, null, 2)`, written about 64 KB at a time. The counts
 * come first in the document, so every row is read before the first is written. Up to
 * ONE_PASS_ROWS sessions the rows are read once (store/listing-rows.ts, each row's facts parsed
 * once) and each listed row's text is kept until the order is known. Past that, so memory stays
 * flat as the store grows, a first pass over every row takes what the filters, the counts and the
 * order need from SQL columns, without the facts (store/listing.ts listingKeys); then the listed
 * rows are loaded, CHUNK at a time in display order, and written.
 */
import {tally} from '../../core/model/tally.js'
import {sameIdentity} from '../../core/model/ownership.js'
import {TIME_LIMITS} from '../../core/model/types.js'
import {inboxCandidates, listingKeys, sessionIdsInOrder} from '../../core/store/listing.js'
import {type ListedRow, ListingRows} from '../../core/store/listing-rows.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {inView} from '../../core/model/view.js'
import {SCHEMA_VERSION} from '../../core/model/wire.js'
import {buildListing, isLive, isRowQuiet, type ListFilters, type Listing, sessionJson, type SortableRow, sortRows} from './views.js'

const CHUNK = 500
/** `{"s": [row]}` stringified with 2 spaces: the row between these is indented as in the document. */
const WRAP_HEAD = '{\n  "s": [\n    '.length
const WRAP_TAIL = '\n  ]\n}'.length
const WRITE_AT = 1 << 16
/** Up to this many sessions in the store, one read: 20,000 rows keep about 26 MB of text. */
const ONE_PASS_ROWS = 20_000

/**
 * Write the listing with `write` (strings of about WRITE_AT characters); returns how many rows it
 * listed. A store of at most ONE_PASS_ROWS sessions is read once: each listed row's text is kept
 * until the order is known. A larger one is read twice, so memory stays flat: the keys first, then
 * the listed rows a chunk at a time in display order.
 */
export function streamListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  write: (chunk: string) => void,
  chunk = CHUNK,
  onePassRows = ONE_PASS_ROWS,
): number {
  const counted: Parameters<typeof tally>[0][number][] = []
  const keys: SortableRow[] = []
  const rows = new ListingRows(store, me)
  const texts = store.countSessions() <= onePassRows ? new Map<string, string>() : null
  const source = texts ? rows.all(chunk) : firstPass(store, me, chunk, f.all === true)
  for (const r of source) {
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
    })
    texts?.set(r.id, rowText(r, me, now))
  }

  const order = sortRows(keys).map((k) => k.id)
  const head: Omit<Listing, 'sessions'> = {
    schema: SCHEMA_VERSION,
    counts: tally(counted),
    generated_at: new Date(now).toISOString(),
    me,
    older_hidden: 0,
  }
  const open = JSON.stringify({...head, sessions: []}, null, 2)
  if (order.length === 0) {
    write(open + '\n')
    return 0
  }

  // `"sessions": []\n}` becomes `"sessions": [\n    {…},\n    {…}\n  ]\n}`.
  write(open.slice(0, open.lastIndexOf('[') + 1))
  let out = ''
  let first = true
  const put = (text: string): void => {
    out += (first ? '\n    ' : ',\n    ') + text
    first = false
    if (out.length >= WRITE_AT) {
      write(out)
      out = ''
    }
  }

  if (texts) for (const id of order) put(texts.get(id)!)
  else {
    for (let i = 0; i < order.length; i += chunk) for (const r of rows.load(order.slice(i, i + chunk))) put(rowText(r, me, now))
  }

  if (out !== '') write(out)
  write('\n  ]\n}\n')
  return order.length
}

/**
 * A row's JSON as it sits in the document: stringified inside a wrapper that puts it at the
 * document's depth, so its indentation needs no second pass. (A chunk of rows stringified whole
 * was faster still but left large strings for V8's large-object space, freed late: peak RSS at
 * 100,000 rows 324 MB against 199 MB so.)
 */
function rowText(r: ListedRow, me: string, now: number): string {
  return JSON.stringify({s: [sessionJson(r, me, now)]}, null, 2).slice(WRAP_HEAD, -WRAP_TAIL)
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
  /** true: the listing's rows (listing-rows.ts: what it prints, no more); else loadSessions' full rows. */
  lean?: false,
): ReturnType<typeof buildListing<SessionRow>> | null
export function inboxListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  remote: readonly SessionRow[],
  lean: boolean,
): ReturnType<typeof buildListing<ListedRow>> | null
export function inboxListing(
  store: Store,
  me: string,
  now: number,
  f: ListFilters,
  remote: readonly SessionRow[],
  lean = false,
): ReturnType<typeof buildListing<ListedRow>> | null {
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
  const rows: readonly ListedRow[] = lean ? new ListingRows(store, me).load(ids) : store.loadSessions(ids)
  const out = buildListing([...rows, ...remote], me, now, f)
  // The rest are out of the inbox; `--all` lists those nobody owns that no one else runs.
  for (const [runner, n] of olderByRunner) if (runner === null || sameIdentity(runner, me)) out.listing.older_hidden += n
  return out
}
