/**
 * The notifier: reads the transitions log from a cursor, turns each transition into a candidate
 * (src/core/model/notify.ts decides which), gathers a burst for a short window, and sends one
 * notification per burst. The cursor and the dedupe keys live in the store's meta table, per
 * identity, so `cast notify` resumes where it stopped and never pages the same ask twice.
 */
import {registry} from '../../adapters/index.js'
import {quietAt} from '../../core/model/attention.js'
import {
  type Candidate,
  candidateOf,
  nextQuietAt,
  type Notification,
  type NotifyOptions,
  type NotifySubject,
  planBurst,
  quietNotice,
} from '../../core/model/notify.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import type {Env} from '../home/env.js'
import {inView} from '../../core/model/view.js'
import {askOf, titleOf} from '../views/views.js'
import type {NtfyConfig} from '../home/config-shape.js'
import {type BackendName, type Delivery, deliver, type NotifyBackendConfig} from './backends.js'
import {PhonePager} from './pager.js'
import {PHONE_BACKENDS, type PhoneBackend} from './phone.js'

export interface NotifierConfig extends NotifyBackendConfig, NotifyOptions {
  /** A burst ends this long after its last candidate (ms), at most 4 windows after its first. */
  readonly groupWindowMs: number
  /** The phone (pager.ts): held while a keystroke at the desk is this recent; Web Push's content; ntfy. */
  readonly activeWindowMs?: number
  readonly push?: {readonly content: 'full' | 'none'}
  readonly ntfy?: NtfyConfig | null
}

export const DEFAULT_NOTIFIER_CONFIG: NotifierConfig = {backends: ['auto'], command: null, done: 'soft', groupWindowMs: 150, quiet: true}

/** The quiet band's scan of every session runs at most this often after pumps. */
const QUIET_SCAN_MS = 5000

/** Remember this many dedupe keys. */
const MAX_SENT = 1000

export interface Sent {
  readonly notification: Notification
  readonly deliveries: readonly Delivery[]
  readonly at: number
  /** The phone's page was held: you are at the desk (why cast thinks so). */
  readonly held?: string | null
}

const isPhone = (b: BackendName): b is PhoneBackend => (PHONE_BACKENDS as readonly string[]).includes(b)

export function subjectOf(row: SessionRow, me: string, now: number, recencyMs: number | undefined): NotifySubject {
  const ask = askOf(row)
  return {
    agent: row.agent,
    ask: ask ? {kind: ask.kind, text: ask.text} : null,
    blocked: row.records.declaration?.status === 'blocked' ? row.records.declaration.text : null,
    bucket: row.bucket,
    id: row.id,
    isChild: row.parentId !== null || row.bucket === 'folded',
    mine: inView(row, me, now, {recencyMs}),
    quietAt: quietAt({lastOutputAt: row.facts.lastOutputAt, state: row.state, workingSince: row.workingSince}),
    reason: row.reason,
    state: row.state,
    title: titleOf(row),
    turn: row.facts.turnIndex,
    workingSince: row.workingSince,
    parkNote: row.park?.endedAt === null ? null : (row.park?.note ?? null),
  }
}

export class Notifier {
  private cursor: number
  private readonly sent: string[]
  private readonly sentSet: Set<string>
  private pending: Candidate[] = []
  private burst: NodeJS.Timeout | null = null
  private quietTimer: NodeJS.Timeout | null = null
  private quietScan: NodeJS.Timeout | null = null
  private lastQuietScan = 0
  private busy: Promise<void> = Promise.resolve()
  private burstStart: number | null = null
  private lastQueued = 0
  private stopped = false
  private readonly metaKey: string
  private readonly pager: PhonePager | null

  constructor(
    private readonly store: Store,
    private readonly env: Env,
    private readonly clock: () => number,
    private readonly me: string,
    private readonly config: NotifierConfig,
    private readonly backends: readonly BackendName[],
    private readonly recencyMs: number | undefined,
    private readonly onSent: (s: Sent) => void,
    since?: number,
  ) {
    this.metaKey = `notify:${me}`
    const phone = backends.filter(isPhone)
    this.pager =
      phone.length === 0
        ? null
        : new PhonePager(store, env, clock, phone, config, (notification, deliveries) =>
            this.onSent({at: this.clock(), deliveries, notification}),
          )
    let saved: {cursor?: number; sent?: string[]} = {}
    try {
      saved = JSON.parse(store.getMeta(this.metaKey) ?? '{}') as typeof saved
    } catch {
      saved = {}
    }

    this.sent = Array.isArray(saved.sent) ? saved.sent.filter((k) => typeof k === 'string').slice(-MAX_SENT) : []
    this.sentSet = new Set(this.sent)
    // First run: start at the end of the log (nothing old pages). --since replays from there.
    this.cursor = since ?? (typeof saved.cursor === 'number' ? saved.cursor : store.lastSeq())
  }

  /** The config with the registry's names of the agents, for the sentences. */
  private get options(): NotifierConfig {
    return {...this.config, agentNames: this.config.agentNames ?? registry().shortNames}
  }

  get position(): number {
    return this.cursor
  }

  /** Read what the log gained since the cursor; gather candidates into the current burst. */
  pump(): void {
    if (this.stopped) return
    const now = this.clock()
    const queued = new Set(this.pending.map((c) => c.key))
    let advanced = false
    for (;;) {
      const batch = this.store.transitionsSince(this.cursor, 500)
      if (batch.length === 0) break
      const rows = new Map(this.store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
      for (const t of batch) {
        this.cursor = t.seq
        advanced = true
        const row = rows.get(t.sessionId)
        if (!row) continue
        const c = candidateOf(t, subjectOf(row, this.me, now, this.recencyMs), this.sentSet, this.config)
        if (c && !queued.has(c.key)) {
          queued.add(c.key)
          this.pending.push(c)
        }
      }
    }

    if (this.pending.length > 0) {
      // A burst ends once no new candidate came for the group window, or 4 windows after it began.
      const at = this.clock()
      if (this.burstStart === null) this.burstStart = at
      if (queued.size > this.lastQueued || this.burst === null) {
        if (this.burst) clearTimeout(this.burst)
        const wait = Math.max(0, Math.min(this.config.groupWindowMs, this.burstStart + 4 * this.config.groupWindowMs - at))
        this.burst = setTimeout(() => void this.flush(), wait)
      }

      this.lastQueued = queued.size
    } else if (advanced) {
      this.save()
    }

    this.quietSoon()
  }

  /**
   * The quiet band reads every session: after a pump, at most once per QUIET_SCAN_MS (quiet is a
   * 10-minute clock, so a few seconds of lag cost nothing and a busy store is not re-read per line).
   */
  private quietSoon(): void {
    if (!this.config.quiet || this.stopped || this.quietScan) return
    const wait = Math.max(0, this.lastQuietScan + QUIET_SCAN_MS - Date.now())
    this.quietScan = setTimeout(() => {
      this.quietScan = null
      this.armQuiet()
    }, wait)
  }

  /** Send the burst gathered so far. */
  flush(): Promise<void> {
    if (this.burst) clearTimeout(this.burst)
    this.burst = null
    this.burstStart = null
    this.lastQueued = 0
    const cands = this.pending
    this.pending = []
    const work = this.busy.then(async () => {
      for (const n of planBurst(cands, this.options)) await this.send(n)
      this.save()
    })
    this.busy = work.catch(() => undefined)
    return work
  }

  private async send(n: Notification): Promise<void> {
    for (const k of n.keys) this.remember(k)
    const deliveries = await deliver(
      n,
      this.backends.filter((b) => !isPhone(b)),
      this.config,
      this.env,
    )
    const phone = this.pager ? await this.pager.page(n) : null
    this.onSent({at: this.clock(), deliveries: [...deliveries, ...(phone?.deliveries ?? [])], held: phone?.held ?? null, notification: n})
  }

  private remember(key: string): void {
    if (this.sentSet.has(key)) return
    this.sentSet.add(key)
    this.sent.push(key)
    while (this.sent.length > MAX_SENT) this.sentSet.delete(this.sent.shift()!)
  }

  private save(): void {
    try {
      this.store.setMeta(this.metaKey, JSON.stringify({cursor: this.cursor, sent: this.sent}))
    } catch {
      // a busy or read-only store: the next save carries it
    }
  }

  /** The quiet band: one timer at the next time a session of mine turns quiet. */
  private armQuiet(): void {
    if (!this.config.quiet || this.stopped) return
    this.lastQuietScan = Date.now()
    const now = this.clock()
    const subjects = this.store.loadSessions().map((r) => subjectOf(r, this.me, now, this.recencyMs))
    const notice = quietNotice(subjects, this.sentSet, now, this.options)
    if (notice) {
      this.busy = this.busy
        .then(() => this.send(notice))
        .then(() => this.save())
        .catch(() => undefined)
    }

    if (this.quietTimer) clearTimeout(this.quietTimer)
    this.quietTimer = null
    const next = nextQuietAt(subjects, now)
    if (next !== null) this.quietTimer = setTimeout(() => this.armQuiet(), Math.min(Math.max(next - now, 0) + 50, 2 ** 31 - 1))
  }

  async stop(): Promise<void> {
    if (this.pending.length > 0) await this.flush()
    this.stopped = true
    if (this.burst) clearTimeout(this.burst)
    if (this.quietTimer) clearTimeout(this.quietTimer)
    if (this.quietScan) clearTimeout(this.quietScan)
    await this.busy
    await this.pager?.stop()
    this.save()
  }
}

/** Start a notifier that follows the log (for `cast notify` and `cast daemon --notify`). */
export async function startNotifying(o: {
  store: Store
  env: Env
  clock: () => number
  me: string
  config: NotifierConfig
  backends: readonly BackendName[]
  recencyMs?: number
  ingest: boolean
  since?: number
  onSent: (s: Sent) => void
  log?: (m: string) => void
}): Promise<{notifier: Notifier; stop(): Promise<void>}> {
  const {followLog} = await import('../ingest/follow.js')
  const notifier = new Notifier(o.store, o.env, o.clock, o.me, o.config, o.backends, o.recencyMs, o.onSent, o.since)
  const follower = await followLog({
    clock: o.clock,
    env: o.env,
    ingest: o.ingest,
    log: o.log,
    me: o.me,
    onWake: () => notifier.pump(),
    store: o.store,
  })
  notifier.pump()
  return {
    notifier,
    async stop() {
      await follower.stop()
      await notifier.stop()
    },
  }
}
