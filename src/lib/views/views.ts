/**
 * Turning stored sessions into what commands print: the JSON shapes of docs/contract.md §6.1 and the
 * human rows of seed 000. Pure: `me` and `now` are passed in.
 */
import {isQuiet, reasonRank} from '../../core/model/attention.js'
import {formatAge, localTime} from '../../core/model/age.js'
import {shortId} from '../../core/model/ids.js'
import {isAssignedAwayFromOwnerSet, isOwnedBy} from '../../core/model/ownership.js'
import {inView, type ViewFilters} from '../../core/model/view.js'
import {formatTally, tally} from '../../core/model/tally.js'
import type {Bucket, WorkState} from '../../core/model/types.js'
import {SECTION_ORDER, SECTION_TITLES} from '../../core/model/types.js'
import type {ListedRow} from '../../core/store/listing-rows.js'
import type {DecisionCard, SessionRow, Transition} from '../../core/store/store.js'
import {
  type AskJson,
  type DecisionJson,
  type ListingJson,
  SCHEMA_VERSION,
  type SessionJson,
  type WatchEvent,
  type WatchLineJson,
} from '../../core/model/wire.js'
import {changedCount, treeOf, usageJson} from './holds-view.js'
import {parkJson, parkLine} from './park-view.js'
import {oneLine} from '../../core/model/sanitize.js'

const iso = (t: number | null | undefined): string | null => (t === null || t === undefined ? null : new Date(t).toISOString())

// The JSON shapes (docs/contract.md §6.1) live in src/core/model/wire.ts; re-exported for the commands.
export type {AskJson, DecisionJson, SessionJson} from '../../core/model/wire.js'

export function decisionJson(d: DecisionCard): DecisionJson {
  return {
    answer: d.answer,
    answer_label: d.answer === null ? null : (d.options[d.answer - 1]?.label ?? null),
    answer_note: d.answerNote,
    answered_at: iso(d.answeredAt),
    answered_by: d.answeredBy,
    asked_at: iso(d.askedAt)!,
    asked_by: d.askedBy,
    auto: d.auto,
    id: d.id,
    options: d.options.map((o, i) => ({effect: o.effect, label: o.label, n: i + 1})),
    question: d.question,
    recommend: d.recommend,
    session_id: d.sessionId,
    why: d.why,
  }
}

/**
 * The open ask, in the order a person answers them: a cast decide card, a permission prompt, an
 * open question, an error the session stopped on. Null when nothing is asked.
 */
export function askOf(row: Pick<ListedRow, 'decision' | 'facts' | 'reason'>): AskJson | null {
  const f = row.facts
  if (row.decision && row.decision.answer === null) return {kind: 'decision', text: row.decision.question, tool: null}
  if (f.approval) return {kind: 'approval', text: f.approval.text, tool: /^[A-Za-z_][\w.-]*/.exec(f.approval.text.trim())?.[0] ?? null}
  if (f.question) return {kind: 'question', text: f.question.text, tool: null}
  if (f.error && row.reason === 'error') return {kind: 'error', text: f.error.text, tool: null}
  return null
}

/**
 * The tmux pane the session runs in, when the screen sweep or the process scan tied one (`%3`),
 * else the pane `cast spawn` opened for it while the session's live process is the one spawn
 * started there (same pid; the engine checks it alive with its start time).
 */
export function paneOf(row: Pick<ListedRow, 'facts' | 'spawnPane'>): string | null {
  const refs = [row.facts.process?.source, ...Object.values(row.facts.sources)]
  for (const src of refs) {
    if (!src || (src.kind !== 'screen' && src.kind !== 'scan')) continue
    const m = /\btmux (?:pane )?(%\d+)/.exec(src.ref)
    if (m) return m[1]!
  }

  const spawned = row.spawnPane
  const proc = row.facts.process
  if (spawned && proc?.alive && proc.exited === null && proc.pid === spawned.pid) return spawned.pane
  return null
}

export function titleOf(row: Pick<ListedRow, 'facts' | 'renamed'>): string | null {
  return row.renamed ?? row.facts.title
}

export function isLive(row: Pick<ListedRow, 'facts'>): boolean {
  return row.facts.process?.alive === true
}

export function isRowQuiet(row: Pick<ListedRow, 'facts' | 'state' | 'workingSince'>, now: number): boolean {
  return isQuiet({lastOutputAt: row.facts.lastOutputAt, state: row.state, workingSince: row.workingSince}, now)
}

export function sessionJson(row: ListedRow, me: string, now: number): SessionJson {
  const f = row.facts
  const d = row.records.declaration
  const myLabel = row.labels[me]
  const tree = treeOf(row)
  return {
    agent: row.agent,
    ask: askOf(row),
    background_work: f.backgroundWork,
    bucket: row.bucket,
    children: [...row.childIds],
    created_at: iso(f.createdAt),
    cwd: f.cwd,
    decision: row.decision ? decisionJson(row.decision) : null,
    device: row.device,
    filing: row.records.filing,
    id: row.id,
    labels: myLabel ? [myLabel] : [],
    last_activity_at: iso(f.lastActivityAt),
    live: isLive(row),
    messages: f.messages,
    model: f.model,
    native_id: row.nativeId,
    owners: [...row.records.owners],
    pane: paneOf(row),
    parent_id: row.parentId,
    pid: f.process?.pid ?? null,
    pinned: row.records.pinned,
    quiet: isRowQuiet(row, now),
    reason: row.reason,
    rule: row.rule,
    runner: row.runner,
    short_id: shortId(row.id),
    snoozed_until: iso(row.records.snoozedUntil),
    state: row.state,
    state_line: d
      ? {at: iso(d.at)!, messages_since: Math.max(0, f.messages - (d.messages ?? f.messages)), status: d.status, text: d.text}
      : null,
    title: titleOf(row),
    waiting_since: row.state === 'needs_input' ? iso(row.stateSince) : null,
    // What the session holds and its park come last: the fields above keep their bytes.
    usage: usageJson(tree.usage),
    changed_files: changedCount(tree),
    park: parkJson(row.park),
  }
}

/** The watch line of docs/contract.md §6.1: codecast's field names, so scripts written for it keep working. */
// What a line of `cast sessions -w` says happened: src/core/model/wire.ts WatchEvent.
export type {WatchEvent} from '../../core/model/wire.js'

/** A change the watch stream prints: a log row, or one it made for an entry or a leave. */
export type WatchChange = Omit<Transition, 'event'> & {readonly event: Exclude<WatchEvent, 'snapshot'>}

/** A `--snapshot` line's record for the readable form (no change: from is null, to is the state now). */
export type WatchSnapshot = Omit<Transition, 'event'> & {readonly event: 'snapshot'}

export function watchLine(
  t: WatchChange | {event: 'snapshot'; seq: number; ts: number},
  row: SessionRow | undefined,
  me: string,
): WatchLineJson {
  const label = row?.labels[me] ?? null
  const isTransition = t.event !== 'snapshot'
  return {
    schema: SCHEMA_VERSION,
    event: t.event,
    seq: t.seq,
    ts: new Date(t.ts).toISOString(),
    id: row?.id ?? (isTransition ? t.sessionId : null),
    session_id: row?.nativeId ?? null,
    short_id: row ? shortId(row.id) : null,
    agent: row?.agent ?? null,
    title: row ? titleOf(row) : null,
    cwd: row?.facts.cwd ?? null,
    from: isTransition ? t.from : null,
    to: isTransition ? t.to : (row?.state ?? null),
    reason: isTransition ? t.reason : (row?.reason ?? null),
    bucket: isTransition ? t.bucket : (row?.bucket ?? null),
    is_pinned: row?.records.pinned ?? false,
    is_live: row ? isLive(row) : false,
    label,
    labels: label ? [label] : [],
    owners: row ? [...row.records.owners] : [],
    ask: row ? askOf(row) : null,
    pane: row ? paneOf(row) : null,
  }
}

/** The filters of a listing: the one view predicate's (src/core/model/view.ts). */
export type ListFilters = ViewFilters

/** What sortRows reads of a row. */
export type SortableRow = Pick<SessionRow, 'bucket' | 'id' | 'reason' | 'stateSince'> & {
  readonly facts: Pick<SessionRow['facts'], 'lastActivityAt'>
  readonly records: Pick<SessionRow['records'], 'deferredAt'>
}

/**
 * Sort rows in display order: by section, then attention (needs input, questions) or recency.
 * Each row's keys are read once (a listing of 10,000 rows compares about 130,000 times); the sort
 * is stable, so rows that compare equal keep their order.
 */
export function sortRows<R extends SortableRow>(rows: R[]): R[] {
  const order = new Map(SECTION_ORDER.map((b, i) => [b, i]))
  const keyed = rows.map((r) => {
    const last = r.facts.lastActivityAt ?? 0
    return {
      // needs_input and questions sort by compareAttention (core/model/attention.ts): reason, then the longest wait.
      attention: r.bucket === 'needs_input' || r.bucket === 'questions',
      deferred: r.records.deferredAt !== null && last <= r.records.deferredAt ? 1 : 0,
      last,
      rank: reasonRank(r.reason),
      row: r,
      section: order.get(r.bucket) ?? 99,
      waiting: r.stateSince,
    }
  })
  keyed.sort((a, b) => {
    const s = a.section - b.section
    if (s !== 0) return s
    const d = a.deferred - b.deferred
    if (d !== 0) return d
    if (a.attention) {
      const byReason = a.rank - b.rank
      if (byReason !== 0) return byReason
      if (a.waiting !== b.waiting) {
        if (a.waiting === null) return 1
        if (b.waiting === null) return -1
        return a.waiting - b.waiting
      }
    }

    return b.last - a.last
  })
  for (const [i, k] of keyed.entries()) rows[i] = k.row
  return rows
}

/** The listing of `cast sessions --json` (src/core/model/wire.ts ListingJson). */
export type Listing = ListingJson

/**
 * The listing of `cast sessions`: counts over my inbox (children folded), rows in display order.
 * Dismissed and hidden rows are counted but listed only with `all`.
 */
export function buildListing<R extends ListedRow>(
  all: readonly R[],
  me: string,
  now: number,
  f: ListFilters,
): {listing: Listing; rows: R[]} {
  const visible = all.filter((r) => inView(r, me, now, f))
  const counts = tally(
    visible.map((r) => ({bucket: r.bucket, live: isLive(r), pinned: r.records.pinned, quiet: isRowQuiet(r, now), state: r.state})),
  )
  const listed = sortRows(visible.filter((r) => r.bucket !== 'folded' && (f.all || (r.bucket !== 'dismissed' && r.bucket !== 'hidden'))))
  const olderHidden =
    f.all || f.team
      ? 0
      : all.filter(
          (r) =>
            r.bucket !== 'folded' &&
            r.bucket !== 'dismissed' &&
            r.bucket !== 'hidden' &&
            !inView(r, me, now, f) &&
            inView(r, me, now, {...f, all: true}),
        ).length
  return {
    listing: {
      schema: SCHEMA_VERSION,
      counts,
      generated_at: new Date(now).toISOString(),
      me,
      older_hidden: olderHidden,
      sessions: listed.map((r) => sessionJson(r, me, now)),
    },
    rows: listed,
  }
}

const MARKERS: Record<WorkState, string> = {dormant: '◌', done: '●', idle: '·', needs_input: '○', working: '◐'}

// The one time style for people lives with the other pure formatters (core/model/age.ts).
export {localTime} from '../../core/model/age.js'

export function tildify(p: string | null, home: string): string {
  if (!p) return '?'
  return home && (p === home || p.startsWith(home + '/')) ? '~' + p.slice(home.length) : p
}

export interface RenderStyle {
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  readonly state: (state: WorkState, s: string) => string
}

export const PLAIN: RenderStyle = {bold: (s) => s, dim: (s) => s, state: (_st, s) => s}

/** One row as in seed 000: marker, state, short id, title; age, messages, cwd, agent; state line. */
export function renderRow(row: ListedRow, me: string, now: number, home: string, style: RenderStyle): string[] {
  const j = sessionJson(row, me, now)
  const stateWord = row.state.replace('_', ' ')
  const detail = j.quiet ? 'quiet' : row.reason
  const head = `${style.state(row.state, `${MARKERS[row.state]} ${stateWord}:${detail}`)}  ${style.bold(j.short_id)}  ${j.title === null ? '(untitled)' : oneLine(j.title)}`
  const age = row.facts.lastActivityAt === null ? 'never' : formatAge(now - row.facts.lastActivityAt)
  const bits = [age, `${j.messages} msg${j.messages === 1 ? '' : 's'}`, oneLine(tildify(j.cwd, home)), row.agent]
  if (j.live) bits.push(`live pid ${j.pid}`)
  if (j.labels.length > 0) bits.push(`label ${oneLine(j.labels[0]!)}`)
  if (row.records.owners.length > 0) bits.push(`owners ${oneLine(row.records.owners.join(', '))}`)
  if (row.runner && row.runner !== me && !isOwnedBy([row.runner], me)) bits.push(`run by ${oneLine(row.runner)}`)
  if (row.records.snoozedUntil && row.bucket === 'snoozed') bits.push(`until ${localTime(row.records.snoozedUntil, now)}`)
  if (row.childIds.length > 0) bits.push(`${row.childIds.length} subagent${row.childIds.length === 1 ? '' : 's'}`)
  const lines = [head, `   ${style.dim(bits.join('  ·  '))}`]
  if (j.state_line) {
    const first = j.state_line.text.split('\n')[0] ?? ''
    const since = j.state_line.messages_since > 0 ? style.dim(`  (${j.state_line.messages_since} msgs since)`) : ''
    lines.push(`   ${j.state_line.status}: ${oneLine(first)}${since}`)
  }

  const firstLine = (t: string): string => oneLine(t.split('\n')[0] ?? '')
  if (row.decision) {
    lines.push(`   decide ${row.decision.id}: ${firstLine(row.decision.question)}`)
  } else if (row.facts.approval) {
    lines.push(`   approve ${firstLine(row.facts.approval.text)}?`)
  } else if (row.facts.question) {
    lines.push(`   asks: ${firstLine(row.facts.question.text)}`)
  } else if (row.facts.error && row.reason === 'error') {
    lines.push(`   error: ${firstLine(row.facts.error.text)}`)
  } else if (row.state === 'needs_input' && row.reason === 'stalled') {
    lines.push(`   stalled: its background work finished, its turn never resumed (nudge: c in cast inbox)`)
  } else if (row.state === 'needs_input' && row.reason === 'blocked_unclear') {
    lines.push('   blocked, and asks nothing: open it to see why')
  }

  const lastNote = row.decision?.auto ? `auto-decided: ${oneLine(row.decision.answerNote ?? '')}` : null
  if (lastNote) lines.push(`   ${lastNote}`)
  if (isAssignedAwayFromOwnerSet(row.records.owners, me)) lines.push(`   ${style.dim('(owned by others: not in your inbox)')}`)
  const park = row.park?.endedAt === null ? parkLine(row.park, now) : null
  if (park !== null) lines.push(`   ${park}`)
  return lines
}

export function renderListing<R extends ListedRow>(
  listing: Listing,
  rows: R[],
  now: number,
  home: string,
  style: RenderStyle,
  title: string,
  /** More lines under each row (`cast sessions --columns`). */
  extra?: (row: R) => string[],
): string {
  const out: string[] = []
  const clock = new Date(now).toLocaleTimeString('en-GB', {hour: '2-digit', minute: '2-digit', second: '2-digit'})
  const older =
    listing.older_hidden > 0
      ? [
          `${listing.older_hidden} older session${listing.older_hidden === 1 ? '' : 's'} hidden (no activity in the recency window): cast sessions --all lists them`,
        ]
      : []
  out.push(`${title} · ${oneLine(listing.me)}  ${clock}`, formatTally(listing.counts), ...older, '')
  let current: Bucket | null = null
  const sizes = new Map<Bucket, number>()
  for (const r of rows) sizes.set(r.bucket, (sizes.get(r.bucket) ?? 0) + 1)
  for (const r of rows) {
    if (r.bucket !== current) {
      current = r.bucket
      out.push(style.bold(`${SECTION_TITLES[r.bucket] ?? r.bucket.toUpperCase()} (${sizes.get(r.bucket)})`), '')
    }

    out.push(...renderRow(r, listing.me, now, home, style), ...(extra?.(r) ?? []), '')
  }

  return out.join('\n').trimEnd()
}
