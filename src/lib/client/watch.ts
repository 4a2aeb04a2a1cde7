/**
 * The library's `watch`: the transitions log (store.transitionsSince) read by seq, as
 * `cast sessions -w --json --since SEQ` reads it, each line the same JSON (src/lib/views/views.ts
 * watchLine). While no ingester holds the lease it syncs the agents' files itself between reads,
 * as `cast wait` does; while one does (cast daemon, a -w stream, cast web) it only reads. A
 * restart of the ingester loses nothing and repeats nothing: the log's seq is the position.
 */
import type {WorkState} from '../../core/model/types.js'
import {inView, type ViewFilters} from '../../core/model/view.js'
import type {SessionRow, Store, Transition} from '../../core/store/store.js'
import type {AskJson} from '../views/json-shapes.js'

/** One line of `cast sessions -w --json` (docs/contract.md §6.1). */
export interface WatchLineJson {
  event: 'new' | 'transition' | 'gone'
  seq: number
  ts: string
  id: string
  session_id: string | null
  short_id: string | null
  agent: string | null
  title: string | null
  cwd: string | null
  from: WorkState | null
  to: WorkState
  reason: string
  bucket: string
  is_pinned: boolean
  is_live: boolean
  label: string | null
  labels: string[]
  owners: string[]
  ask: AskJson | null
  pane: string | null
}

export interface WatchFilter {
  /** Only transitions into these states. */
  readonly states?: readonly WorkState[]
  /** Only sessions carrying this label (spawned workers included). */
  readonly label?: string
  readonly agent?: readonly string[]
  /** Every session, not only my inbox's (ownership), as `--all`. */
  readonly all?: boolean
}

export interface WatchOptions extends WatchFilter {
  /** Resume after this seq (a line's `seq`); default: from now on. */
  readonly since?: number
  /** Ends the iteration (cleanly: the loop just stops) when aborted. */
  readonly signal?: AbortSignal
  /** How often the log is read when nothing is new (ms; default 250). */
  readonly pollMs?: number
}

export interface WatchHost {
  readonly store: Store
  readonly me: string
  now(): number
  /** One sync when no ingester holds the lease (nothing otherwise). */
  sync(): Promise<void>
}

export async function* watchTransitions(host: WatchHost, options: WatchOptions = {}): AsyncGenerator<WatchLineJson, void, undefined> {
  const {watchLine} = await import('../views/views.js')
  const {store, me} = host
  const signal = options.signal
  const pollMs = options.pollMs ?? 250
  const filters: ViewFilters = {agent: options.agent, all: true, label: options.label ? [options.label] : undefined}
  let last = options.since ?? store.lastSeq()
  while (!signal?.aborted) {
    await host.sync()
    const batch = store.transitionsSince(last, 500)
    if (batch.length > 0) {
      const rows = new Map(store.loadSessions([...new Set(batch.map((t) => t.sessionId))]).map((r) => [r.id, r]))
      for (const t of batch) {
        last = t.seq
        const row = rows.get(t.sessionId)
        if (!matches(t, row, me, host.now(), options, filters)) continue
        yield watchLine(t, row, me) as unknown as WatchLineJson
        if (signal?.aborted) return
      }

      continue
    }

    await sleep(pollMs, signal)
  }
}

function matches(t: Transition, row: SessionRow | undefined, me: string, now: number, o: WatchFilter, filters: ViewFilters): boolean {
  if (o.states && o.states.length > 0 && !o.states.includes(t.to)) return false
  if (!row) return t.event === 'gone' && !o.label && !o.agent?.length
  if (row.bucket === 'folded' && !o.label) return false
  return inView(row, me, now, {...filters, ...(o.all ? {team: true} : {})})
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const done = (): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }

    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, {once: true})
  })
}
