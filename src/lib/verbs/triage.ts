/**
 * The triage verbs' rule: resolve every session first, then one transaction that asks the verb's
 * pure plan (src/core/model/triage.ts) about each session, saves the undo history, applies the
 * change and reconciles; then one line per session. A plan that refuses any session refuses the
 * whole action: the transaction rolls back, nothing changes.
 */
import type {MarkAs, TriagePlan, TriageRefusal} from '../../core/model/triage.js'
import type {SessionRow} from '../../core/store/store.js'
import {EXIT} from '../base/exit-codes.js'
import type {SessionJson} from '../views/views.js'
import {done, refuse, type VerbContext, type VerbDone} from './types.js'

export interface TriageResult {
  verb: string
  /** The undo history action, or null when nothing changed. */
  action: number | null
  sessions: SessionJson[]
}

/** The exit code of each kind of refusal. */
const REFUSAL_EXIT: Record<TriageRefusal['kind'], number> = {not_found: EXIT.NOT_FOUND, refused: EXIT.REFUSED, usage: EXIT.USAGE}

/** The store brought up to date for the verb (unless the caller keeps it current), and the clock. */
export async function synced(ctx: VerbContext): Promise<void> {
  if (ctx.sync === false || ctx.store.stale) return
  const {syncBeforeReadQuick} = await import('../ingest/quick-sync.js')
  await syncBeforeReadQuick(ctx.store, ctx.env, ctx.clock, ctx.me)
}

export async function resolveAll(ctx: VerbContext, queries: readonly string[]): Promise<string[]> {
  const {resolveSessions} = await import('../base/resolve.js')
  return resolveSessions(ctx.store, queries)
}

/** Apply one plan to every session named, as one undoable action. */
export async function triage(
  ctx: VerbContext,
  verb: string,
  queries: readonly string[],
  plan: (row: SessionRow, now: number) => TriagePlan,
  what: (row: SessionRow) => string,
): Promise<VerbDone<TriageResult>> {
  await synced(ctx)
  const {applyTriage} = await import('../../core/store/triage.js')
  const {isRefusal} = await import('../../core/model/triage.js')
  const ids = await resolveAll(ctx, queries)
  const now = ctx.clock()
  const applied = applyTriage(ctx.store, {now, verb, who: ctx.me}, ids, (row) => {
    const planned = plan(row, now)
    if (isRefusal(planned)) refuse(planned.refused, REFUSAL_EXIT[planned.kind])
    return planned
  })
  return report(ctx, verb, applied.action, ids, now, what, new Set(applied.sessions))
}

/** Reload the sessions: their JSON, and one line each (short id, title, what was done, where it is now). */
export async function report(
  ctx: VerbContext,
  verb: string,
  action: number | null,
  ids: readonly string[],
  now: number,
  what: (row: SessionRow) => string,
  changed?: ReadonlySet<string>,
): Promise<VerbDone<TriageResult>> {
  const {sessionJson, titleOf} = await import('../views/views.js')
  const {oneLine} = await import('../../core/model/sanitize.js')
  const {shortId} = await import('../../core/model/ids.js')
  const rows = ctx.store.loadSessions(ids)
  const lines = rows.map((row) => {
    const did = changed && !changed.has(row.id) ? 'unchanged' : what(row)
    return `${shortId(row.id)}  ${oneLine(titleOf(row) ?? '(untitled)')}  ${oneLine(did)} → ${row.bucket} (${row.state}:${row.reason})`
  })
  return done({action, sessions: rows.map((r) => sessionJson(r, ctx.me, now)), verb}, lines)
}

export interface Sessions {
  readonly sessions: readonly string[]
}

export async function pin(ctx: VerbContext, i: Sessions & {pinned: boolean}): Promise<VerbDone<TriageResult>> {
  const {planPin} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    i.pinned ? 'pin' : 'unpin',
    i.sessions,
    (row) => planPin(row, i.pinned),
    () => (i.pinned ? 'pinned' : 'unpinned'),
  )
}

export async function defer(ctx: VerbContext, i: Sessions): Promise<VerbDone<TriageResult>> {
  const {planDefer} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    'defer',
    i.sessions,
    (row, now) => planDefer(row, now),
    () => 'deferred',
  )
}

export async function wake(ctx: VerbContext, i: Sessions): Promise<VerbDone<TriageResult>> {
  const {planWake} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    'wake',
    i.sessions,
    (row, now) => planWake(row, now),
    () => 'woken',
  )
}

export async function restore(ctx: VerbContext, i: Sessions): Promise<VerbDone<TriageResult>> {
  const {planRestore} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    'restore',
    i.sessions,
    (row) => planRestore(row),
    () => 'restored',
  )
}

export async function mark(ctx: VerbContext, i: Sessions & {as: MarkAs}): Promise<VerbDone<TriageResult>> {
  const {planMark} = await import('../../core/model/triage.js')
  const word = i.as === 'needs_input' ? 'needs-input' : i.as
  return triage(
    ctx,
    `mark ${word}`,
    i.sessions,
    (row, now) => planMark(row, now, i.as),
    () => `marked ${word}`,
  )
}

export const MAX_LABEL = 40

export async function label(ctx: VerbContext, i: Sessions & {label: string | null}): Promise<VerbDone<TriageResult>> {
  const name = i.label === null ? null : i.label.trim()
  if (name === '') refuse('Name the label, then the sessions: cast label NAME SESSION...', EXIT.USAGE)
  if (name !== null && (name.length > MAX_LABEL || /[\s,]/.test(name)))
    refuse(`"${name}" is not a label: one word of at most ${MAX_LABEL} characters, no spaces or commas.`, EXIT.USAGE)
  const {planLabel} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    name === null ? 'label --clear' : 'label',
    i.sessions,
    (row) => planLabel(row, ctx.me, name),
    () => (name === null ? 'label cleared' : `labelled ${name}`),
  )
}

export const MAX_TITLE = 200

export async function rename(ctx: VerbContext, i: {session: string; title: string | null}): Promise<VerbDone<TriageResult>> {
  const title = i.title === null ? null : i.title.replace(/\s+/g, ' ').trim()
  if (title === '') refuse('Give the new title: cast rename SESSION TITLE (or --clear).', EXIT.USAGE)
  if (title !== null && title.length > MAX_TITLE) refuse(`The title is ${title.length} characters; keep it under ${MAX_TITLE}.`, EXIT.USAGE)
  const {planRename} = await import('../../core/model/triage.js')
  return triage(
    ctx,
    'rename',
    [i.session],
    (row) => planRename(row, title),
    () => (title === null ? 'title reset' : 'renamed'),
  )
}

/** A snooze: for a duration (ms, counted from the moment it is filed), until a time, or a person's words for either. */
export type SnoozeInput = Sessions & ({readonly forMs: number} | {readonly until: number} | {readonly when: string})

export async function snooze(ctx: VerbContext, i: SnoozeInput): Promise<VerbDone<TriageResult>> {
  const {humanTime} = await import('../base/time-format.js')
  const {planSnooze} = await import('../../core/model/triage.js')
  const start = ctx.clock()
  let forMs: number | null = 'forMs' in i ? i.forMs : null
  let until: number | null = 'until' in i ? i.until : null
  if ('when' in i) {
    const {parseDuration, parseTime} = await import('../../core/model/durations.js')
    const text = i.when.trim()
    forMs = parseDuration(text)
    until = forMs === null ? parseTime(text, start) : null
    if (forMs === null && until === null)
      refuse(`"${text}" is not a duration (30m, 2h) or a time (tomorrow 9am, 2026-12-01T09:00:00Z).`, EXIT.USAGE)
  }

  const fixed = until ?? start
  const untilAt = (at: number): number => (forMs === null ? fixed : at + forMs)
  const when = humanTime(untilAt(start), start)
  return triage(
    ctx,
    'snooze',
    i.sessions,
    (row, at) => planSnooze(row, at, untilAt(at)),
    () => `snoozed until ${when}`,
  )
}

export async function stash(
  ctx: VerbContext,
  i: Sessions & {hide: boolean; untilReady?: string | null; note?: string | null},
): Promise<VerbDone<TriageResult>> {
  if (i.untilReady === undefined || i.untilReady === null) {
    if (i.note !== undefined && i.note !== null) refuse('--note goes with --until-ready (a park keeps its note).', EXIT.USAGE)
    const {planStash} = await import('../../core/model/triage.js')
    return triage(
      ctx,
      i.hide ? 'stash --hide' : 'stash',
      i.sessions,
      (row, now) => planStash(row, now, i.hide),
      () => (i.hide ? 'stashed (hidden)' : 'stashed'),
    )
  }

  // Stash and park on OTHER: every refusal before any change (src/lib/verbs/park.ts).
  await synced(ctx)
  const {resolveSession} = await import('../base/resolve.js')
  const {parkSessions} = await import('./park.js')
  const {parkLine} = await import('../views/park-view.js')
  const ids = await resolveAll(ctx, i.sessions)
  const otherId = resolveSession(ctx.store, i.untilReady)
  const now = ctx.clock()
  const r = await parkSessions(ctx.store, {hide: i.hide, ids, note: i.note ?? null, now, otherId, who: ctx.me})
  if (!r.ok) refuse(r.message, r.kind === 'usage' ? EXIT.USAGE : EXIT.REFUSED)
  return report(ctx, 'stash --until-ready', r.action, ids, now, (row) => parkLine(row.park, now) ?? 'parked')
}
