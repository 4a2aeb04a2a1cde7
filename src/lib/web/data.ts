/**
 * What the page of `cast web` renders: the listing `cast sessions --json` prints (built by the
 * same function, src/lib/views/sessions-list.ts listSessions), the tally line, the verb catalog
 * (src/core/model/verbs.ts), and for one session of this machine what its answer view needs
 * (the open ask and the agent's last message, read from this machine's store). A teammate's
 * session carries only its title and ask line: transcripts never leave their machine.
 */
import {formatTally} from '../../core/model/tally.js'
import {verbTable} from '../../core/model/verbs.js'
import {storeChangeKey} from '../../core/store/screen.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {historyMark} from '../../core/store/watch-marks.js'
import {deviceName, type Env, homeDir} from '../home/env.js'
import {listSessions} from '../views/sessions-list.js'
import {decisionJson, type Listing, type SessionJson, sessionJson} from '../views/views.js'

export type PageListing = Listing & {
  tally: string
  verbs: ReturnType<typeof verbTable>
  seq: number
  home: string
  /** This machine's name (what its own sessions' `device` says): a card on another machine names it. */
  device: string
  /** The view: my inbox, or (`cast web --team`) every session of the team, as `cast sessions --team`. */
  team: boolean
  /** Teammates' sessions listed that I may not act on, by id: the line the page shows instead of acting. */
  read_only: Record<string, string>
  /** A line the page shows above the tally (a kept demo whose stand-in agents ended). */
  notice?: string
}

/** The listing of `cast sessions --json` (`--team --json` for the team's view), with the tally line, the catalog and what is read-only. */
export async function pageListing(store: Store, env: Env, clock: () => number, me: string, team = false): Promise<PageListing> {
  const seq = store.lastSeq()
  const ignore = (): void => undefined
  let readOnly: Record<string, string> = {}
  const out = {
    json: true,
    line: ignore,
    readOnly: (lines: Readonly<Record<string, string>>) => (readOnly = {...lines}),
    styled: ignore,
    write: ignore,
  }
  const listing = (await listSessions(store, env, clock, me, team ? {team: true} : {}, out)) as Listing
  const {demoStoppedLine} = await import('../home/demo-home.js')
  const {isSameProcessAlive} = await import('../../core/ingest/process-table.js')
  const notice = demoStoppedLine(store.home, isSameProcessAlive, clock())
  return {
    ...listing,
    ...(notice === null ? {} : {notice}),
    device: deviceName(env),
    home: homeDir(env),
    read_only: readOnly,
    seq,
    tally: formatTally(listing.counts),
    team,
    verbs: verbTable(),
  }
}

/**
 * The built listing, kept while the store is unchanged: a page load, the stream's snapshot and
 * `/api/listing` read it instead of building `cast sessions --json` again (at 10,000 sessions a
 * build is seconds; serving the kept one, milliseconds). It is valid while the store's change key
 * (src/core/store/screen.ts storeChangeKey: any commit, ours or another process's), the log's
 * last seq and the history mark are those it was built at, and for FRESH_MS (what moves with the
 * clock alone: the quiet flag, the recency window, generated_at). Builds are shared: callers
 * that arrive while one runs wait for it. The build runs on a worker thread
 * (listing-worker.ts), so the server keeps streaming transitions while it runs.
 */
export const FRESH_MS = 10_000

export interface BuiltListing {
  /** JSON.stringify of the listing. */
  readonly json: string
  /** JSON.stringify of its head (listingHead), for the page's first paint. */
  readonly head: string
  readonly seq: number
  readonly key: string
  readonly at: number
}

/** Builds the listing: on a worker thread (listing-worker.ts) when one starts, else here. */
export type ListingBuilder = () => Promise<Omit<BuiltListing, 'key' | 'at'>>

export class ListingCache {
  private kept: BuiltListing | null = null
  private building: Promise<BuiltListing> | null = null
  /** Bumped by invalidate(): a build that started before it is returned but not kept. */
  private generation = 0
  /**
   * Set while a team is joined: the listing holds teammates' rows, which the key cannot see and
   * which change without a notice (a summary rewritten alone), so every read builds anew, after
   * any build already under way (which may have read the team store before the change).
   */
  volatile = false

  constructor(
    private readonly store: Store,
    private readonly build: ListingBuilder,
    private readonly now: () => number = Date.now,
  ) {}

  private key(): string {
    const m = historyMark(this.store)
    return `${storeChangeKey(this.store)}|${this.store.lastSeq()}|${m.lastId}|${m.undone}`
  }

  /** The listing as of now: the kept one when nothing changed and it is fresh, else a new build. */
  async fresh(): Promise<BuiltListing> {
    const k = this.kept
    if (this.volatile) {
      await this.building?.catch(() => undefined)
      return this.rebuild()
    }

    if (k && k.key === this.key() && this.now() - k.at <= FRESH_MS) return k
    return this.rebuild()
  }

  /**
   * For the first paint: the kept listing when the store is unchanged, however old (the page's
   * stream brings a fresh one right after, and a new build starts now); else a new build.
   */
  async quick(): Promise<BuiltListing> {
    if (this.volatile) return this.fresh()
    const k = this.kept
    if (k && k.key === this.key()) {
      if (this.now() - k.at > FRESH_MS) void this.rebuild().catch(() => undefined)
      return k
    }

    return this.rebuild()
  }

  /**
   * Forget the kept listing: something its key cannot see changed (a teammate's machine
   * published to the team store), so the next read builds anew.
   */
  invalidate(): void {
    this.generation++
    this.kept = null
  }

  /** Build now (or join the build under way). */
  rebuild(): Promise<BuiltListing> {
    this.building ??= (async () => {
      try {
        const at = this.now()
        const generation = this.generation
        const built = await this.build()
        // Keyed after the build: a build that wrote (a snooze come due) is not stale at once.
        const kept = {...built, at, key: this.key()}
        if (generation === this.generation) this.kept = kept
        return kept
      } finally {
        this.building = null
      }
    })()
    return this.building
  }
}

/** The builder of a server: a worker thread running listing-worker.ts, or null when none starts. */
export async function workerBuilder(
  env: Env,
  me: string,
  team = false,
): Promise<{build: ListingBuilder; stop: () => Promise<void>} | null> {
  const {Worker} = await import('node:worker_threads')
  let worker: import('node:worker_threads').Worker
  try {
    worker = new Worker(new URL('listing-worker.js', import.meta.url), {env: {...env}, workerData: {env: {...env}, me, team}})
  } catch {
    return null
  }

  worker.unref()
  let dead: Error | null = null
  let next = 0
  const waiting = new Map<number, {resolve: (b: Omit<BuiltListing, 'key' | 'at'>) => void; reject: (e: Error) => void}>()
  const fail = (error: Error): void => {
    dead = error
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
  }

  worker.on('message', (m: {id: number; error?: string; json: string; head: string; seq: number}) => {
    const w = waiting.get(m.id)
    waiting.delete(m.id)
    if (m.error !== undefined) w?.reject(new Error(m.error))
    else w?.resolve({head: m.head, json: m.json, seq: m.seq})
  })
  worker.on('error', (e) => fail(e))
  worker.on('exit', () => fail(new Error('The listing thread stopped.')))
  return {
    build: () =>
      new Promise((resolve, reject) => {
        if (dead) return reject(dead)
        const id = ++next
        waiting.set(id, {reject, resolve})
        worker.postMessage(id)
      }),
    stop: async () => {
      await worker.terminate()
    },
  }
}

/** The builder on this thread (no worker). */
export function localBuilder(store: Store, env: Env, clock: () => number, me: string, team = false): ListingBuilder {
  return async () => {
    const l = await pageListing(store, env, clock, me, team)
    return {head: JSON.stringify(listingHead(l)), json: JSON.stringify(l), seq: l.seq}
  }
}

/** Sections the page shows collapsed (src/web/render.ts SECTIONS): their cards are not drawn on load. */
const COLLAPSED = new Set(['snoozed', 'stashed', 'hidden', 'killed', 'dismissed'])
/** How many cards the first answer carries: a tall screen of them (a card is about 80 px high, src/web/window.ts). */
export const HEAD_ROWS = 24

/**
 * What the first paint needs, in the page's HTML: the listing with its counts, tally and catalog,
 * but only the first HEAD_ROWS cards of the open sections (what fills the viewport), and how
 * many cards each section has (`sections`). `head: true` says the rest comes on the stream
 * (its snapshot follows at once). A listing of HEAD_ROWS cards or fewer is sent whole.
 */
export function listingHead(l: PageListing): PageListing & {head?: true; sections?: Record<string, number>} {
  if (l.sessions.length <= HEAD_ROWS) return l
  const sections: Record<string, number> = {}
  for (const s of l.sessions) sections[s.bucket] = (sections[s.bucket] ?? 0) + 1
  const sessions: SessionJson[] = []
  for (const s of l.sessions) {
    if (sessions.length >= HEAD_ROWS) break
    if (!COLLAPSED.has(s.bucket)) sessions.push(s)
  }

  return {...l, head: true, sections, sessions}
}

export interface SessionDetail {
  session: SessionJson
  /** The agent's last message, when this machine's files hold it. */
  last_assistant_text: string | null
  approval: {text: string; at: string} | null
  question: {
    text: string
    at: string
    choices: {label: string; description: string | null}[] | null
    /** Several questions or a multiple choice: every question and its options (answered in the terminal). */
    questions:
      {question: string; header: string | null; multiSelect: boolean; options: {label: string; description: string | null}[]}[] | null
  } | null
  error: {text: string; at: string} | null
  /** The permission dialog as the agent's screen shows it now (the command it asks to run), when it runs in tmux. */
  screen_dialog: string | null
}

/** The answer view's session, or null when this machine's store does not hold it. */
export async function sessionDetail(store: Store, env: Env, id: string, me: string, now: number): Promise<SessionDetail | null> {
  const row = store.loadSessions([id])[0]
  if (!row) return null
  const f = row.facts
  const block = (b: {text: string; at: number} | null) => (b ? {at: new Date(b.at).toISOString(), text: b.text} : null)
  const session = sessionJson(row, me, now)
  return {
    approval: block(f.approval),
    error: block(f.error),
    last_assistant_text: f.lastAssistantText,
    question: f.question
      ? {
          ...block(f.question)!,
          choices: f.question.choices ? [...f.question.choices] : null,
          questions: f.question.questions ? f.question.questions.map((q) => ({...q, options: [...q.options]})) : null,
        }
      : null,
    screen_dialog: f.approval ? await dialogOnScreen(store, env, row) : null,
    session: {...session, decision: row.decision ? decisionJson(row.decision) : null},
  }
}

/** What `cast approve` reads before it answers: the open dialog on the agent's screen (read only). */
async function dialogOnScreen(store: Store, env: Env, row: SessionRow): Promise<string | null> {
  const {findPane, screenDialog} = await import('../agents/dialog.js')
  const {captureScreen} = await import('../agents/tmux.js')
  const found = await findPane(store, row, env).catch(() => null)
  if (!found?.pane) return null
  const d = screenDialog(env, row.agent, found.pane, await captureScreen(found.pane, env))
  return d?.kind === 'approval' ? d.text : null
}
