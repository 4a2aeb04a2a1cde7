/**
 * The ingester's side of the team store: after each pass (and every half second) it publishes
 * the outbox and carries out the actions queued for this device; a LISTEN connection wakes it at
 * once when one is queued. The server going away is an outage, not a failure: the outbox keeps
 * everything and the next pass that reaches the server delivers it.
 */
import type {Client, Pool} from 'pg'

import {teamJoin} from '../outbox.js'
import type {Store} from '../store.js'
import {carryOutActions, type RunCast} from './actions.js'
import {cleanError, openClient, openPool} from './client.js'
import {notePublishError} from './aside.js'
import {ensureDevice, joinedDevice} from './machines.js'
import {publishAll} from './publisher.js'

export interface TeamSyncOptions {
  readonly url: string
  readonly device: string
  readonly who: string
  readonly log: (msg: string) => void
  readonly run: RunCast
  readonly clock: () => number
  readonly intervalMs?: number
}

export class TeamSync {
  private pool: Pool | null = null
  private listener: Client | null = null
  private timer: NodeJS.Timeout | null = null
  private kickTimer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null
  private again = false
  private stopped = false
  private failing: string | null = null
  private listening = false
  passes = 0

  constructor(
    private readonly store: Store,
    private readonly opts: TeamSyncOptions,
  ) {}

  async start(): Promise<void> {
    this.pool = await openPool(this.opts.url, {max: 2})
    this.timer = setInterval(() => this.kick(0), this.opts.intervalMs ?? 500)
    this.timer.unref()
    await this.tick()
  }

  /** Run a pass soon (coalesced). */
  kick(delayMs = 20): void {
    if (this.stopped || this.kickTimer) return
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null
      void this.tick()
    }, delayMs)
  }

  /** One pass: publish, then carry out queued actions. Concurrent calls coalesce into one more. */
  tick(): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }

    this.running = (async () => {
      do {
        this.again = false
        await this.pass()
      } while (this.again && !this.stopped)
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async pass(): Promise<void> {
    if (this.stopped || !this.pool) return
    const join = teamJoin(this.store)
    if (!join) return
    const problems: string[] = []
    const fail = (error: unknown): void => {
      problems.push(cleanError(error, this.opts.url))
    }

    await this.listen().catch(fail)
    // Publishing and carrying out actions fail apart: a refused device name or a server fault in
    // one never holds back the other.
    let published = false
    try {
      const moved = await ensureDevice(this.store, this.pool, this.opts.device)
      if (moved !== null) this.opts.log(`team store: this machine is now ${this.opts.device}; ${moved} session row(s) moved to it`)
      await publishAll(this.store, this.pool, {device: this.opts.device, epoch: join.epoch, now: this.opts.clock})
      published = true
    } catch (error) {
      if (!published) notePublishError(this.store, new Error(cleanError(error, this.opts.url)), this.opts.clock())
      fail(error)
    }

    await carryOutActions(this.store, this.pool, joinedDevice(this.store) ?? this.opts.device, this.opts.run, this.opts.clock).catch(fail)
    this.passes++
    const failed = problems[0] ?? null
    if (failed === null) {
      if (this.failing) this.opts.log(`team store reachable again (${this.failing})`)
      this.failing = null
      return
    }

    if (this.failing !== failed) this.opts.log(`team store: ${failed}; the outbox keeps every change until it is back`)
    this.failing = failed
  }

  /** The LISTEN connection for actions queued for this device (re-opened after a drop). */
  private async listen(): Promise<void> {
    if (this.listening || this.stopped) return
    const c = await openClient(this.opts.url)
    const drop = (): void => {
      if (this.listener !== c) return
      this.listener = null
      this.listening = false
      void c.end().catch(() => {})
    }

    c.on('error', drop)
    c.on('end', drop)
    c.on('notification', (n) => {
      if (n.payload === this.opts.device) this.kick(0)
    })
    await c.query('LISTEN cast_actions')
    this.listener = c
    this.listening = true
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    if (this.kickTimer) clearTimeout(this.kickTimer)
    await this.running?.catch(() => {})
    await this.listener?.end().catch(() => {})
    await this.pool?.end().catch(() => {})
  }
}
