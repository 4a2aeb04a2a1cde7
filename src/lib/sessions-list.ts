/**
 * `cast sessions` (the listing, not -w): bring the store up to date, build the listing and print
 * it. Shared by the oclif command (src/commands/sessions.ts) and bin/run.js's fast path
 * (src/lib/sessions-fast.ts, issue 16), so both print the same bytes. Nothing here loads oclif.
 *
 * Human output goes through `out.line` (a plain line: the caller shows control characters rather
 * than obey them) and `out.styled` (text cast rendered and sanitized itself). With `out.json`
 * the listing is returned for the caller to print (`JSON.stringify(listing, null, 2)`), except
 * the streamed `--json --all`, which writes itself and returns nothing.
 */
import type {SyncStats} from '../core/ingest/engine.js'
import type {Agent, WorkState} from '../core/model/types.js'
import type {SessionRow, Store} from '../core/store/store.js'
import {teamRows} from '../core/store/team/index.js'
import {sweepSnoozes} from '../core/store/triage.js'
import {loadConfig} from './config.js'
import {deviceName, type Env, homeDir} from './env.js'
import {INGESTER_LEASE, leaseIsLive} from './lease.js'
import {inboxListing, streamListing} from './stream-listing.js'
import {buildListing, type Listing, renderListing} from './views.js'

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
}

export interface SessionsListOutput {
  readonly json: boolean
  /** One plain line of human output. */
  line(text: string): void
  /** Human output cast styled itself (agent strings already made visible). */
  styled(text: string): void
  /** Raw bytes on stdout (the streamed JSON list). */
  write(chunk: string): void
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
  // Recent first (issue 16): the inbox reads the files inside its window and leaves the older
  // ones to a background pass; --all waits for every file, with a progress line past a second.
  const syncOptions = flags.all
    ? {
        progress: (line: string, final: boolean) =>
          process.stderr.write(process.stderr.isTTY && !final ? `\r${line}\u001B[K` : `${process.stderr.isTTY ? '\r' : ''}${line}\n`),
      }
    : {recentFirst: {recencyMs: config.inbox.recencyMs}}
  // A live ingester holding the lease keeps the store current: no sync, and the ingest wiring (every
  // adapter) is not even loaded. Only the time rules come due here, as syncBeforeRead does.
  let synced: SyncStats | null = null
  if (!leaseIsLive(store.getLease(INGESTER_LEASE)))
    synced = (await import('./ingest.js')).syncBeforeRead(store, env, clock, me, syncOptions)
  else if (!env.CAST_NOW?.trim()) sweepSnoozes(store, clock())
  const now = clock()
  // Joined to a team store: teammates' sessions too (the inbox keeps those I own or run).
  const remote = await teamRows(store, env, config, deviceName(env), (m) => process.stderr.write(`cast: ${m}\n`))
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
  if (flags.all && out.json && !flags.team && remote.length === 0) {
    // The big list streams (issue 16 point 4): the same bytes, a chunk of rows at a time.
    streamListing(store, me, now, filters, (chunk) => out.write(chunk))
    return
  }

  // The default inbox reads only the rows that can be in it (issue 16); filters read them all.
  const {listing, rows} =
    inboxListing(store, me, now, filters, remote) ?? buildListing([...store.loadSessions(), ...remote], me, now, filters)
  if (!out.json) await printHuman(store, env, clock, me, flags, out, {listing, now, rows, synced})
  return listing
}

/** The human listing, gathered and printed at once: through the pager when it is taller than the terminal (src/lib/pager.ts). */
async function printHuman(
  store: Store,
  env: Env,
  clock: () => number,
  me: string,
  flags: SessionsListFlags,
  out: SessionsListOutput,
  {listing, now, rows, synced}: {listing: Listing; now: number; rows: SessionRow[]; synced: SyncStats | null},
): Promise<void> {
  // Gathered, then printed at once: through the pager when it is taller than the terminal (src/lib/pager.ts).
  const {visible} = await import('./sanitize.js')
  const human: string[] = []
  const styled = (text: string): number => human.push(text)
  const line = (text: string): number => human.push(visible(text))
  const {fitLines, terminalStyle, terminalWidth} = await import('./style.js')
  const style = await terminalStyle()
  styled(
    fitLines(
      renderListing(listing, rows, now, homeDir(env), style, flags.team ? 'cast sessions · team' : 'cast sessions'),
      terminalWidth(env),
    ),
  )
  if (synced && synced.deferred > 0) {
    line('')
    line(
      `Reading ${synced.deferred.toLocaleString('en-US')} older files (${Math.round(synced.deferredBytes / 2 ** 20)} MB) in the background: "cast sessions --all" waits for them.`,
    )
  } else if (store.countSessions() === 0) {
    const {makeIngester} = await import('./ingest.js')
    const roots = makeIngester(store, env, clock, me).roots()
    line('')
    line('No agent sessions found. cast looked in:')
    for (const r of roots) line(`  ${r.root}  (${r.agent})`)
    line('Try "cast demo" to see the inbox over a bundled example.')
  } else if (rows.length === 0) {
    line('')
    line('Nothing in your inbox under these filters. "cast sessions --all" lists everything.')
  }

  const text = human.join('\n')
  const {page, shouldPage} = await import('./pager.js')
  if (shouldPage(text, env, process.stdout, flags.pager !== false)) await page(text + '\n', env)
  else out.styled(text)
}
