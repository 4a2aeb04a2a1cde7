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
/**
 * A client that stops reading. While its socket has not taken what was written (backed up), a
 * new listing is not queued behind the last one: the client is marked stale and gets the latest
 * listing when it drains (a listing replaces the one before, so one is ever pending per client).
 * Transitions and heartbeats still queue; once more than CLIENT_BUFFER_MAX of them waits, or it
 * has stayed backed up STALL_MS, the client is dropped with one line on stderr. So a silent
 * client holds at most one listing and a megabyte, and not for longer than STALL_MS.
 */
export const CLIENT_BUFFER_MAX = 1024 * 1024
export const STALL_MS = 30_000
/** How often open streams are checked against their session or device (revoked, logged out, expired) and for a stall. */
export const ALIVE_CHECK_MS = 400

interface Client {
  /** Whose stream it is (guard.ts ownerOf). */
  readonly owner: string
  /** Backed up since (wall clock), or null while its socket keeps up. */
  since: number | null
  /** Bytes queued while backed up (not counting the listing it was backed up by). */
  backlog: number
  /** A listing was held back while backed up: the latest goes out when it drains. */
  stale: boolean
}

export class EventHub {
  /** Each open stream, whose it is, and how far behind its socket is. */
  private readonly clients = new Map<ServerResponse, Client>()
  /** The latest listing sent (what a stale client gets when it drains). */
  private latest: string | null = null
  /** How long a client may stay backed up before it is dropped. */
  stallMs = STALL_MS
  private aliveTimer: NodeJS.Timeout | null = null
  /** Is this owner still let in? (Set by the server: the guard's check.) */
  alive: (owner: string) => boolean = () => true
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
    this.heartbeat = setInterval(
      () => this.broadcast(`: heartbeat ${new Date(this.clock()).toISOString()}\n\n`, false, false),
      HEARTBEAT_MS,
    )
    this.heartbeat.unref()
    this.aliveTimer = setInterval(() => this.checkAlive(), ALIVE_CHECK_MS)
    this.aliveTimer.unref()
  }

  /** End every open stream whose session or device is no longer let in (revoked, logged out, expired), or that stalled. */
  checkAlive(): void {
    if (this.clients.size === 0) return
    const verdict = new Map<string, boolean>()
    const now = Date.now()
    for (const [res, c] of this.clients) {
      if (c.since !== null && now - c.since > this.stallMs) {
        this.slow(res, `backed up ${Math.round((now - c.since) / 1000)} s`)
        continue
      }

      const owner = c.owner
      let ok = verdict.get(owner)
      if (ok === undefined) {
        try {
          ok = this.alive(owner)
        } catch {
          ok = true
        }

        verdict.set(owner, ok)
      }

      if (!ok) this.drop(res)
    }
  }

  /** End this owner's open streams now (logout). */
  closeOwner(owner: string): void {
    for (const [res, c] of this.clients) if (c.owner === owner) this.drop(res)
  }

  /** Bytes written to open streams and not yet taken by their sockets. */
  get buffered(): number {
    let n = 0
    for (const res of this.clients.keys()) n += res.writableLength
    return n
  }

  private drop(res: ServerResponse): void {
    this.clients.delete(res)
    res.destroy()
  }

  /** Drop a client that stopped reading, with the one line that says so. */
  private slow(res: ServerResponse, why: string): void {
    if (!this.clients.has(res)) return
    process.stderr.write(
      `cast web: dropped a live-stream client that stopped reading (${why}, ${res.writableLength} bytes unsent, ${res.socket?.remoteAddress ?? 'gone'})\n`,
    )
    this.drop(res)
  }

  /**
   * Write to an open stream, minding its socket: a listing to a backed-up client is held (the
   * latest goes out on drain); anything else queues, up to CLIENT_BUFFER_MAX.
   */
  private send(res: ServerResponse, text: string, listing: boolean): void {
    const c = this.clients.get(res)
    if (!c) return
    if (listing && c.since !== null) {
      c.stale = true
      return
    }

    const behind = c.since !== null
    if (!write(res, text)) return void this.clients.delete(res)
    if (!res.writableNeedDrain) return
    if (behind) c.backlog += Buffer.byteLength(text)
    else c.since = Date.now()
    if (c.backlog > CLIENT_BUFFER_MAX) this.slow(res, `over ${CLIENT_BUFFER_MAX} bytes behind`)
  }

  /** The socket took what was queued: the client keeps up again, and gets the latest listing it missed. */
  private drained(res: ServerResponse): void {
    const c = this.clients.get(res)
    if (!c) return
    c.since = null
    c.backlog = 0
    if (c.stale && this.latest !== null) {
      c.stale = false
      this.send(res, rawEvent('listing', this.latest), true)
    }
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat)
    if (this.listingTimer) clearTimeout(this.listingTimer)
    if (this.aliveTimer) clearInterval(this.aliveTimer)
    for (const res of this.clients.keys()) end(res)
    this.clients.clear()
    await this.follower?.stop()
  }

  get size(): number {
    return this.clients.size
  }

  /** A new stream: what it missed since Last-Event-ID (when given), then the listing now. */
  async add(res: ServerResponse, lastEventId: number | null, owner: string): Promise<void> {
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
        if (res.writableLength > CLIENT_BUFFER_MAX) return void res.destroy()
      }
    }

    const built = await this.listing()
    if (!write(res, rawEvent('snapshot', built.json, built.seq))) return
    // Revoked or logged out while the snapshot was built.
    if (!this.alive(owner)) return void res.destroy()
    this.clients.set(res, {backlog: 0, owner, since: res.writableNeedDrain ? Date.now() : null, stale: false})
    res.on('drain', () => this.drained(res))
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
        this.latest = (await this.listing()).json
        this.broadcast(rawEvent('listing', this.latest), true)
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

  /** Send to every open stream; `data` (not a heartbeat): first drop the streams whose owner is no longer let in. */
  private broadcast(text: string, listing = false, data = true): void {
    if (data) this.checkAlive()
    for (const res of [...this.clients.keys()]) this.send(res, text, listing)
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
