/**
 * `cast sessions` (the listing, not -w): bring the store up to date, build the listing and print
 * it. Shared by the oclif command (src/commands/sessions.ts) and bin/run.js's fast path
 * (src/lib/cli/sessions-fast.ts), so both print the same bytes. Nothing here loads oclif.
 *
 * Human output goes through `out.line` (a plain line: the caller shows control characters rather
 * than obey them) and `out.styled` (text cast rendered and sanitized itself). With `out.json`
 * the listing is returned for the caller to print (`JSON.stringify(listing, null, 2)`), except
 * the streamed `--json --all`, which writes itself and returns nothing.
 */
import type {SyncStats} from '../../core/ingest/engine.js'
import type {Agent, WorkState} from '../../core/model/types.js'
import type {Store} from '../../core/store/store.js'
import {teamRows} from '../team/index.js'
import {readOnlyLine} from '../../core/model/ownership.js'
import {oneLine} from '../../core/model/sanitize.js'
import {sweepSnoozes} from '../../core/store/triage.js'
import {loadConfig} from '../home/config.js'
import {deviceName, type Env, homeDir} from '../home/env.js'
import {BACKFILL_LEASE, INGESTER_LEASE, leaseIsLive} from '../ingest/lease.js'
import {inboxListing, streamListing} from './stream-listing.js'
import {type Column, columnCells} from './holds-view.js'
import {buildListing, type Listing, PLAIN, renderListing, type RenderStyle} from './views.js'
import type {SessionRow} from '../../core/store/sessions.js'
import type {ListedRow} from '../../core/store/listing-rows.js'

/** The extra line `--columns` asks for under each row, or undefined. */
function columnsLine(flags: SessionsListFlags, now: number, style: RenderStyle): ((row: ListedRow) => string[]) | undefined {
  const columns = flags.columns
  if (columns === undefined || columns.length === 0) return undefined
  // With --columns the rows are loadSessions' full rows (listSessions).
  return (row) => [`   ${style.dim(columnCells(row as SessionRow, columns, now).join('  ·  '))}`]
}

export interface SessionsListFlags {
  readonly agent?: readonly Agent[]
  readonly all?: boolean
  readonly cwd?: string
  readonly label?: readonly string[]
  /** false: never through the pager (--no-pager). */
  readonly pager?: boolean
  readonly quiet?: boolean
  readonly state?: readonly WorkState[]
  readonly team?: boolean
  /** `--columns`: what each row holds, on a line of its own (src/lib/views/holds-view.ts). */
  readonly columns?: readonly Column[]
}

export interface SessionsListOutput {
  readonly json: boolean
  /** One plain line of human output. */
  line(text: string): void
  /** Human output cast styled itself (agent strings already made visible). */
  styled(text: string): void
  /** Raw bytes on stdout (the streamed JSON list). */
  write(chunk: string): void
  /**
   * Render for a pipe whatever this process's stdout is: no colour, COLUMNS alone for the width,
   * no pager (`cast daemon` answering a caller whose stdout is not a terminal, read-serve.ts).
   */
  readonly plain?: boolean
  /** The listed teammates' sessions I may not act on, by id, and why (`cast web`'s page marks them read-only). */
  readOnly?(lines: Readonly<Record<string, string>>): void
}

export async function listSessions(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  flags: SessionsListFlags,
  out: SessionsListOutput,
): Promise<Listing | void> {
  const config = await loadConfig(env)
  // CAST_NOW is a test clock: with a live ingester on real time, read only (no sweep at a fake time).
  // Recent first: the inbox reads the files inside its window and leaves the older
  // ones to a background pass; --all waits for every file, with a progress line past a second.
  const syncOptions = flags.all
    ? {
        progress: (line: string, final: boolean) =>
          process.stderr.write(process.stderr.isTTY && !final ? `\r${line}\u001B[K` : `${process.stderr.isTTY ? '\r' : ''}${line}\n`),
      }
    : {recentFirst: {recencyMs: config.inbox.recencyMs}}
  // A live ingester holding the lease keeps the store current: no sync, and the ingest wiring (every
  // adapter) is not even loaded. Only the time rules come due here, as syncBeforeRead does. Without
  // one, the sync loads the adapters' parsers only when something changed (quick-sync.ts).
  let synced: SyncStats | null = null
  // A read-only CAST_HOME: the stored inbox as it is, said once (stale).
  if (store.stale) process.stderr.write(staleLine(store.home) + '\n')
  else if (!leaseIsLive(store.getLease(INGESTER_LEASE)))
    synced = await (await import('../ingest/quick-sync.js')).syncBeforeReadQuick(store, env, clock, me, syncOptions)
  else if (!env.CAST_NOW?.trim()) sweepSnoozes(store, clock())
  const now = clock()
  // Joined to a team store: teammates' sessions too (the inbox keeps those I own or run). A
  // teammate's row that names a session of this machine's store is not shown: this machine's
  // store is the truth for its own sessions (docs/team.md: a squatted id).
  const fetched = await teamRows(store, env, config, deviceName(env), (m) => process.stderr.write(`cast: ${m}\n`))
  const local = new Set(fetched.length === 0 ? [] : store.loadSessions(fetched.map((r) => r.id)).map((r) => r.id))
  const remote = local.size === 0 ? fetched : fetched.filter((r) => !local.has(r.id))
  const filters = {
    agent: flags.agent,
    all: flags.all,
    cwd: flags.cwd,
    label: flags.label,
    quiet: flags.quiet,
    recencyMs: config.inbox.recencyMs,
    states: flags.state,
    team: flags.team,
  }
  if (flags.all && out.json && !flags.team && remote.length === 0 && !store.stale) {
    // The big list streams: the same bytes, a chunk of rows at a time.
    streamListing(store, me, now, filters, (chunk) => out.write(chunk))
    return
  }

  // The default inbox reads only the rows that can be in it; filters read them all.
  // The inbox reads the listing's rows (store/listing-rows.ts), or full rows for --columns.
  const full = flags.columns !== undefined && flags.columns.length > 0
  const built: {listing: Listing; rows: ListedRow[]} =
    inboxListing(store, me, now, filters, remote, !full) ?? buildListing([...store.loadSessions(), ...remote], me, now, filters)
  const {rows} = built
  // Older files still being read (left by this answer, or by an earlier one whose background pass
  // runs): say so, in JSON as in the human view.
  const unread = synced !== null && synced.deferred > 0 ? synced.deferred : leaseIsLive(store.getLease(BACKFILL_LEASE)) ? null : 0
  const listing = unread === 0 ? built.listing : withPartial(built.listing, unread)
  if (store.stale) listing.stale = true
  const readOnly = readOnlyLines(rows, remote, me)
  out.readOnly?.(readOnly)
  if (!out.json) await printHuman(store, env, clock, me, flags, out, {listing, now, readOnly, rows, synced, unread})
  return listing
}

/** The human listing, gathered and printed at once: through the pager when it is taller than the terminal (src/lib/views/pager.ts). */
async function printHuman(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  flags: SessionsListFlags,
  out: SessionsListOutput,
  {
    listing,
    now,
    readOnly,
    rows,
    synced,
    unread,
  }: {
    listing: Listing
    now: number
    readOnly: Readonly<Record<string, string>>
    rows: ListedRow[]
    synced: SyncStats | null
    unread: number | null
  },
): Promise<void> {
  const {visible} = await import('../../core/model/sanitize.js')
  const human: string[] = []
  const styled = (text: string): number => human.push(text)
  const line = (text: string): number => human.push(visible(text))
  const {fitLines, terminalStyle, terminalWidth} = await import('./style.js')
  const pipe = {isTTY: false}
  const style = out.plain ? PLAIN : await terminalStyle()
  const title = flags.team ? 'cast sessions · team' : 'cast sessions'
  const columns = columnsLine(flags, now, style)
  const extra = (row: ListedRow): string[] => [
    ...(readOnly[row.id] === undefined ? [] : [`   ${style.dim(oneLine(readOnly[row.id]!))}`]),
    ...(columns?.(row) ?? []),
  ]
  styled(
    fitLines(renderListing(listing, rows, now, homeDir(env), style, title, extra), terminalWidth(env, out.plain ? pipe : process.stdout)),
  )
  if (synced && synced.deferred > 0) {
    line('')
    line(
      `Reading ${synced.deferred.toLocaleString('en-US')} older files (${Math.round(synced.deferredBytes / 2 ** 20)} MB) in the background: "cast sessions --all" waits for them.`,
    )
  } else if (unread === null) {
    line('')
    line('Still reading older files in the background: "cast sessions --all" waits for them.')
  } else if (store.countSessions() === 0) {
    const {makeIngester} = await import('../ingest/ingest.js')
    const roots = makeIngester(store, env, clock, me).roots()
    line('')
    line('No agent sessions found. cast looked in:')
    for (const r of roots) line(`  ${r.root}  (${r.agent})`)
    line('Try "cast demo" to see the inbox over a bundled example.')
  } else if (rows.length === 0) {
    line('')
    // Under --all nothing is hidden but by the filters themselves: the way out is to drop them.
    line(
      flags.all
        ? 'No session matches these filters. Drop --state, --label, --agent or --cwd to list every session.'
        : 'Nothing in your inbox under these filters. "cast sessions --all" lists everything.',
    )
  }

  // A kept demo whose stand-in agents ended: say why its live sessions read dead.
  const {demoStoppedLine} = await import('../home/demo-home.js')
  const {isSameProcessAlive} = await import('../../core/ingest/process-table.js')
  const demo = demoStoppedLine(store.home, isSameProcessAlive, now)
  if (demo !== null) {
    line('')
    line(demo)
  }

  const text = human.join('\n')
  const {page, shouldPage} = await import('./pager.js')
  if (shouldPage(text, env, out.plain ? pipe : process.stdout, flags.pager !== false)) await page(text + '\n', env)
  else out.styled(text)
}

/**
 * The listed teammates' sessions I may not act on and why (core/model/ownership.ts readOnlyLine):
 * a session of this machine's store never is; the view that lists them is `--team` (my inbox
 * holds only teammates' sessions I own or run).
 */
function readOnlyLines(rows: readonly ListedRow[], remote: readonly SessionRow[], me: string): Record<string, string> {
  const out: Record<string, string> = {}
  if (remote.length === 0) return out
  const theirs = new Set(remote.map((r) => r.id))
  for (const r of rows) {
    if (!theirs.has(r.id)) continue
    const line = readOnlyLine({device: r.device, owners: r.records.owners, runner: r.runner}, me)
    if (line !== null) out[r.id] = line
  }

  return out
}

/** The listing with `partial` and `unread_files` placed before `sessions` (the field order scripts see). */
function withPartial(listing: Listing, unread: number | null): Listing {
  const {sessions, ...head} = listing
  return {...head, partial: true, unread_files: unread, sessions}
}

/** What a command reading a read-only CAST_HOME says once on stderr. */
export function staleLine(home: string): string {
  return `cast: CAST_HOME ${home} is read-only: this is the stored inbox, not synced (stale).`
}
