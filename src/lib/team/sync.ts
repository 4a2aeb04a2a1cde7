/**
 * The ingester's side of the team: two loops that never wait on each other.
 * - Publishing: after each ingest pass (kick) and every half second, the outbox goes to the
 *   server (src/core/store/team/publisher.ts).
 * - Actions: on a notification on `cast_actions` naming this device (a LISTEN connection, re-opened
 *   after a drop) and every half second, the executor (executor.ts) carries out what is queued.
 * Each loop has its own connection pool and its own failure state: a publish that fails (a row
 * the server refuses, a dropped connection mid-batch) never stops teammates' actions, and the
 * other way round. The server going away is an outage, not a failure: the outbox keeps
 * everything, each loop retries with a backoff (up to 10 s), and the next pass that reaches the
 * server delivers it. Every pg Pool and Client has an 'error' listener (client.ts): a connection
 * that dies at any moment is a failed query, never a dead process.
 */
import type {Client, Pool} from 'pg'

import {teamJoin} from '../../core/store/outbox.js'
import type {Store} from '../../core/store/store.js'
import {notePublishError} from '../../core/store/team/aside.js'
import {cleanError, openClient, openPool} from '../../core/store/team/client.js'
import {ensureDevice, joinedDevice} from '../../core/store/team/machines.js'
import {publishAll} from '../../core/store/team/publisher.js'
import {carryOutActions, type RunCast} from './executor.js'

export interface TeamSyncOptions {
  readonly url: string
  readonly device: string
  /** CAST_HOME: the executor's trust list. */
  readonly home: string
  readonly log: (msg: string) => void
  readonly run: RunCast
  readonly clock: () => number
  readonly intervalMs?: number
}

const MAX_BACKOFF_MS = 10_000

/** One coalescing loop: a pass at a time, one more if kicked meanwhile, a backoff after a failure. */
class Loop {
  private running: Promise<void> | null = null
  private again = false
  private kickTimer: NodeJS.Timeout | null = null
  private failing: string | null = null
  private failures = 0
  private notBefore = 0
  stopped = false
  passes = 0

  constructor(
    private readonly name: string,
    private readonly body: () => Promise<void>,
    private readonly opts: {url: string; log: (m: string) => void},
  ) {}

  kick(delayMs: number): void {
    if (this.stopped || this.kickTimer) return
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null
      void this.tick()
    }, delayMs)
  }

  tick(): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }

    this.running = (async () => {
      do {
        this.again = false
        if (Date.now() < this.notBefore) return
        await this.pass()
      } while (this.again && !this.stopped)
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async pass(): Promise<void> {
    if (this.stopped) return
    try {
      await this.body()
      this.passes++
      if (this.failing) this.opts.log(`team store reachable again for ${this.name} (${this.failing})`)
      this.failing = null
      this.failures = 0
      this.notBefore = 0
    } catch (error) {
      const msg = cleanError(error, this.opts.url)
      if (this.failing !== msg) this.opts.log(`team store (${this.name}): ${msg}; retrying`)
      this.failing = msg
      this.failures++
      this.notBefore = Date.now() + Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(this.failures - 1, 6))
    }
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.kickTimer) clearTimeout(this.kickTimer)
    await this.running?.catch(() => {})
  }
}

export class TeamSync {
  private publishPool: Pool | null = null
  private actionPool: Pool | null = null
  private listener: Client | null = null
  private opening: Promise<void> | null = null
  private timer: NodeJS.Timeout | null = null
  private stopped = false
  private readonly publishing: Loop
  private readonly acting: Loop

  constructor(
    private readonly store: Store,
    private readonly opts: TeamSyncOptions,
  ) {
    const o = {log: opts.log, url: opts.url}
    this.publishing = new Loop('publishing', () => this.publish(), o)
    this.acting = new Loop('actions', () => this.act(), o)
  }

  get passes(): number {
    return this.publishing.passes
  }

  async start(): Promise<void> {
    this.publishPool = await openPool(this.opts.url, {max: 1})
    this.actionPool = await openPool(this.opts.url, {max: 1})
    this.timer = setInterval(() => {
      this.publishing.kick(0)
      this.acting.kick(0)
    }, this.opts.intervalMs ?? 500)
    this.timer.unref()
    await Promise.all([this.publishing.tick(), this.acting.tick()])
  }

  /** Publish soon (coalesced): the ingester changed something. */
  kick(delayMs = 20): void {
    this.publishing.kick(delayMs)
  }

  private async publish(): Promise<void> {
    const join = teamJoin(this.store)
    if (!join || !this.publishPool) return
    try {
      const moved = await ensureDevice(this.store, this.publishPool, this.opts.device)
      if (moved !== null) this.opts.log(`team store: this machine is now ${this.opts.device}; ${moved} session row(s) moved to it`)
      await publishAll(this.store, this.publishPool, {device: this.opts.device, epoch: join.epoch, now: this.opts.clock})
    } catch (error) {
      notePublishError(this.store, new Error(cleanError(error, this.opts.url)), this.opts.clock())
      throw error
    }
  }

  private async act(): Promise<void> {
    if (!teamJoin(this.store) || !this.actionPool) return
    await this.listen()
    await carryOutActions({
      device: joinedDevice(this.store) ?? this.opts.device,
      home: this.opts.home,
      now: this.opts.clock,
      pool: this.actionPool,
      run: this.opts.run,
      store: this.store,
    })
  }

  /** The LISTEN connection for actions queued for this device (re-opened after a drop). */
  private async listen(): Promise<void> {
    if (this.listener || this.stopped) return
    this.opening ??= (async () => {
      const c = await openClient(this.opts.url)
      const drop = (): void => {
        if (this.listener !== c) return
        this.listener = null
        void c.end().catch(() => {})
      }

      c.on('error', drop)
      c.on('end', drop)
      c.on('notification', (n) => {
        if (n.payload === this.opts.device) this.acting.kick(0)
      })
      try {
        await c.query('LISTEN cast_actions')
      } catch (error) {
        await c.end().catch(() => {})
        throw error
      }

      if (this.stopped) await c.end().catch(() => {})
      else this.listener = c
    })().finally(() => {
      this.opening = null
    })
    await this.opening
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    await Promise.all([this.publishing.stop(), this.acting.stop()])
    await this.opening?.catch(() => {})
    await this.listener?.end().catch(() => {})
    await this.publishPool?.end().catch(() => {})
    await this.actionPool?.end().catch(() => {})
  }
}
