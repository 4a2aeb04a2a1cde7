/**
 * The phone's side of the notifier: which pages may ring the phone, and when. Only what a person
 * must act on (a session in Questions, or needs_input for an approval, a question, an error, a
 * dead process, a declared blocked) and never a row set by your own verdict. While you are at the
 * desk (activity.ts) the page is held and only the desktop shows it; once you are idle, what is
 * held and still waiting goes out as one page.
 */
import type {Notification} from '../../core/model/notify.js'
import type {SessionRow, Store} from '../../core/store/store.js'
import {castHome, type Env} from '../home/env.js'
import {titleOf} from '../views/views.js'
import {DEFAULT_ACTIVE_WINDOW_MS, deskPresence} from './activity.js'
import type {Delivery} from './backends.js'
import {deliverPhone, type PhoneBackend, type PhoneContext} from './phone.js'

const PAGING_REASONS = new Set(['approval', 'question', 'error', 'dead', 'declared_blocked'])

/** How often held pages check whether you left the desk. */
const HELD_POLL_MS = 15_000

/** Does this row, as it is now, need the person enough to ring the phone? */
export function pagesPhone(row: Pick<SessionRow, 'bucket' | 'state' | 'reason'>): boolean {
  if (row.reason === 'user_verdict') return false
  return row.bucket === 'questions' || (row.state === 'needs_input' && PAGING_REASONS.has(row.reason))
}

export interface PhoneOutcome {
  readonly deliveries: readonly Delivery[]
  /** Held at the desk: why cast thinks you are there. */
  readonly held: string | null
}

export class PhonePager {
  private held: Notification[] = []
  private timer: NodeJS.Timeout | null = null
  private busy: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly store: Store,
    private readonly env: Env,
    private readonly clock: () => number,
    private readonly backends: readonly PhoneBackend[],
    private readonly config: PhoneContext['config'] & {readonly activeWindowMs?: number},
    private readonly onReleased: (n: Notification, deliveries: readonly Delivery[]) => void,
  ) {}

  private worthy(ids: readonly string[]): SessionRow[] {
    return this.store.loadSessions([...ids]).filter(pagesPhone)
  }

  private async away(): Promise<{active: boolean; why: string | null}> {
    const p = await deskPresence({
      env: this.env,
      home: castHome(this.env),
      now: this.clock(),
      rows: this.store.loadSessions(),
      windowMs: this.config.activeWindowMs ?? DEFAULT_ACTIVE_WINDOW_MS,
    })
    return {active: p.active, why: p.why?.detail ?? null}
  }

  private async send(n: Notification): Promise<Delivery[]> {
    const ctx: PhoneContext = {config: this.config, env: this.env, now: this.clock(), store: this.store}
    const out: Delivery[] = []
    for (const b of this.backends) {
      const d = await deliverPhone(n, b, ctx)
      if (d) out.push(d)
    }

    return out
  }

  /** Page the phone for this notification now, or hold it while you are at the desk. */
  async page(n: Notification): Promise<PhoneOutcome> {
    const rows = this.worthy(n.sessions)
    if (rows.length === 0 || this.backends.length === 0) return {deliveries: [], held: null}
    const page = rows.length === n.sessions.length ? n : regroup(rows)
    const desk = await this.away()
    if (desk.active) {
      this.held.push(page)
      this.arm()
      return {deliveries: [], held: desk.why}
    }

    return {deliveries: await this.send(page), held: null}
  }

  private arm(): void {
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      this.busy = this.busy.then(() => this.release()).catch(() => undefined)
    }, HELD_POLL_MS)
  }

  /** You left the desk: what is held and still waiting goes out once. */
  async release(): Promise<void> {
    if (this.held.length === 0) return
    if ((await this.away()).active) return this.arm()
    const held = this.held
    this.held = []
    const ids = [...new Set(held.flatMap((n) => n.sessions))]
    const rows = this.worthy(ids)
    if (rows.length === 0) return
    const one = held.find((n) => n.sessions.length === rows.length && rows.every((r) => n.sessions.includes(r.id)))
    const page = one ?? regroup(rows)
    this.onReleased(page, await this.send(page))
  }

  get holding(): number {
    return this.held.length
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.busy
  }
}

/** One page for several sessions (held ones, or the part of a burst that pages the phone). */
function regroup(rows: readonly SessionRow[]): Notification {
  if (rows.length === 1) {
    const r = rows[0]!
    return {
      body: titleOf(r) ?? '(untitled)',
      keys: [],
      kind: 'needs_input',
      sessions: [r.id],
      summary: `${r.agent} is waiting for you`,
      urgency: 'normal',
    }
  }

  return {
    body: rows
      .slice(0, 5)
      .map((r) => `${r.agent} · ${titleOf(r) ?? '(untitled)'}`)
      .join('\n'),
    keys: [],
    kind: 'mixed',
    sessions: rows.map((r) => r.id),
    summary: `${rows.length} agents need you`,
    urgency: 'normal',
  }
}
