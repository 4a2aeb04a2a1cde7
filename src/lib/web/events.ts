/**
 * The page's live stream (Server-Sent Events): on connect the listing ("snapshot"), then each
 * transition of the log as it is written, with its seq as the event id, so a reconnect sends
 * Last-Event-ID and gets what it missed (nothing lost, nothing twice), then a fresh listing after
 * each batch. It follows the log the way `cast inbox` and `cast notify` do (src/lib/ingest/follow.ts:
 * the store's files wake it, and it runs the ingester in-process when nobody holds the lease).
 * A person's action that wrote no transition (pin, label, undo) is seen by the history mark, as
 * `cast sessions -w` sees it (src/lib/views/watch.ts). A client that goes away mid-stream is dropped;
 * nothing it does can throw in the server.
 */
import type {ServerResponse} from 'node:http'

import {inView} from '../../core/model/view.js'
import type {StreamEvent} from '../../core/model/wire.js'
import type {Store} from '../../core/store/store.js'
import {historyMark, type HistoryMark} from '../../core/store/watch-marks.js'
import type {Env} from '../home/env.js'
import type {Follower} from '../ingest/follow.js'
import {watchLine} from '../views/views.js'
import type {BuiltListing} from './data.js'

/** A comment line this often keeps proxies and the browser from timing the stream out. */
export const HEARTBEAT_MS = 15_000
/**
 * After the log moved, the listing follows once it has been quiet this long, or LISTING_MAX_MS
 * after the first change it waits on: a burst of transitions costs one build (which blocks this
 * process: 0.1 s at 1,000 sessions, seconds at 10,000), and the transitions themselves, sent at
 * once, never queue behind one. A person's verb from the page is followed at once.
 */
export const LISTING_QUIET_MS = 250
export const LISTING_MAX_MS = 1500

export class EventHub {
  private readonly clients = new Set<ServerResponse>()
  private lastSeq: number
  private mark: HistoryMark
  private follower: Follower | null = null
  private delivering = false
  private heartbeat: NodeJS.Timeout | null = null
  private building = false
  private again = false
  private listingTimer: NodeJS.Timeout | null = null
  private waitingSince: number | null = null

  constructor(
    private readonly store: Store,
    private readonly env: Env,
    private readonly clock: () => number,
    private readonly me: string,
    private readonly listing: () => Promise<BuiltListing>,
    private readonly recencyMs: number,
  ) {
    this.lastSeq = store.lastSeq()
    this.mark = historyMark(store)
  }

  async start(): Promise<void> {
    const {followLog} = await import('../ingest/follow.js')
    this.follower = await followLog({
      clock: this.clock,
      env: this.env,
      ingest: true,
      me: this.me,
      onWake: () => this.pump(),
      store: this.store,
    })
    this.heartbeat = setInterval(() => this.broadcast(`: heartbeat ${new Date(this.clock()).toISOString()}\n\n`), HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat)
    if (this.listingTimer) clearTimeout(this.listingTimer)
    for (const res of this.clients) end(res)
    this.clients.clear()
    await this.follower?.stop()
  }

  get size(): number {
    return this.clients.size
  }

  /** A new stream: what it missed since Last-Event-ID (when given), then the listing now. */
  async add(res: ServerResponse, lastEventId: number | null): Promise<void> {
    res.writeHead(200, {'cache-control': 'no-store', connection: 'keep-alive', 'content-type': 'text/event-stream; charset=utf-8'})
    res.on('close', () => this.clients.delete(res))
    res.on('error', () => this.clients.delete(res))
    write(res, 'retry: 1000\n\n')
    if (lastEventId !== null) {
      let seq = lastEventId
      for (;;) {
        const batch = this.store.transitionsSince(seq, 500)
        if (batch.length === 0) break
        seq = batch[batch.length - 1]!.seq
        if (!write(res, this.transitionEvents(batch))) return
      }
    }

    const built = await this.listing()
    if (!write(res, rawEvent('snapshot', built.json, built.seq))) return
    this.clients.add(res)
  }

  /**
   * The log grew or the store changed: send the new transitions at once, then a fresh listing.
   * Listings are built one at a time and coalesced, so a slow one never holds a transition back;
   * `now`: a person's verb, whose listing is not held for the log to settle.
   */
  pump(now = false): void {
    // Without a cast daemon this server ingests: it also delivers `cast send --queue`'s held messages.
    if (this.follower?.ingesting && !this.delivering) {
      this.delivering = true
      void import('../agents/send-queue.js')
        .then(({deliverQueued}) => deliverQueued(this.store, this.env, this.clock))
        .catch(() => undefined)
        .finally(() => (this.delivering = false))
    }

    try {
      let changed = false
      for (;;) {
        const batch = this.store.transitionsSince(this.lastSeq, 500)
        if (batch.length === 0) break
        this.lastSeq = batch[batch.length - 1]!.seq
        this.broadcast(this.transitionEvents(batch))
        changed = true
      }

      const mark = historyMark(this.store)
      if (mark.lastId !== this.mark.lastId || mark.undone !== this.mark.undone) changed = true
      this.mark = mark
      if (changed && this.clients.size > 0) this.listingSoon(now)
    } catch {
      // A failed read is tried again on the next wake (the follower's safety tick is 2 s).
    }
  }

  /** Something outside this machine's log changed (a teammate's machine published): a fresh listing. */
  refresh(): void {
    if (this.clients.size > 0) void this.sendListing()
  }

  private listingSoon(now: boolean): void {
    const t = Date.now()
    this.waitingSince ??= t
    if (this.listingTimer) clearTimeout(this.listingTimer)
    const wait = now ? 0 : Math.max(0, Math.min(LISTING_QUIET_MS, this.waitingSince + LISTING_MAX_MS - t))
    this.listingTimer = setTimeout(() => {
      this.listingTimer = null
      this.waitingSince = null
      void this.sendListing()
    }, wait)
  }

  private async sendListing(): Promise<void> {
    if (this.building) {
      this.again = true
      return
    }

    this.building = true
    try {
      do {
        this.again = false
        this.broadcast(rawEvent('listing', (await this.listing()).json))
      } while (this.again)
    } catch {
      // The next change sends it.
    } finally {
      this.building = false
    }
  }

  /** Transitions of sessions in my inbox as watch lines (docs/contract.md §6.1), each with its seq as id. */
  private transitionEvents(batch: ReturnType<Store['transitionsSince']>): string {
    const rows = new Map(this.store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
    const now = this.clock()
    let out = ''
    for (const t of batch) {
      const row = rows.get(t.sessionId)
      // The id moves on for every transition, shown or not, so a resume starts after it.
      const shown = row !== undefined && row.bucket !== 'folded' && inView(row, this.me, now, {all: true, recencyMs: this.recencyMs})
      out += shown ? event('transition', watchLine(t, row, this.me), t.seq) : `id: ${t.seq}\n: skipped\n\n`
    }

    return out
  }

  private broadcast(text: string): void {
    for (const res of this.clients) if (!write(res, text)) this.clients.delete(res)
  }
}

function event(name: StreamEvent, data: unknown, id?: number): string {
  // JSON has no raw newlines: one data line.
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${JSON.stringify(data)}\n\n`
}

/** An event whose data is JSON already serialized (one line: JSON has no raw newlines). */
function rawEvent(name: StreamEvent, json: string, id?: number): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${name}\ndata: ${json}\n\n`
}

/** Write to a stream that may be gone; false when it is. */
function write(res: ServerResponse, text: string): boolean {
  if (res.destroyed || res.writableEnded) return false
  try {
    res.write(text)
    return true
  } catch {
    return false
  }
}

function end(res: ServerResponse): void {
  try {
    res.end()
  } catch {
    // already gone
  }
}
