/**
 * `cast sessions --team -w`: the team's transitions as they reach the server, one line each,
 * in the server's order (its seq), woken by LISTEN cast_team and re-read from the last printed
 * seq after every wake, poll and reconnect, so a dropped connection or a server restart loses
 * nothing and prints nothing twice. --since SEQ resumes after SEQ. The cursor (stream.ts) waits
 * at a seq still in flight and drops a device's copied or out-of-order events.
 *
 * A notification is a hint: any role that can connect may send one (PostgreSQL has no privilege
 * on NOTIFY), so the reads notifications cause are at most one per MIN_GAP_MS however many
 * arrive; the read after a gap sees every change anyway.
 */
import type {Client, Pool} from 'pg'

import {cleanError, openClient, openPool} from './client.js'
import {localTime} from '../../model/age.js'
import {oneLine} from '../../model/sanitize.js'
import {text} from '../rows.js'
import {lastEventSeq, type TeamEvent, watchLine} from './reader.js'
import {EventCursor, readEvents} from './stream.js'

const MIN_GAP_MS = 250

export interface TeamWatchOptions {
  readonly url: string
  readonly since: number | undefined
  readonly json: boolean
  readonly states?: readonly string[]
  readonly agent?: readonly string[]
  readonly write: (line: string) => boolean
  readonly log: (msg: string) => void
}

/** Print one event as the options ask (true: printed or filtered out; false: the output is gone). */
function printEvent(o: TeamWatchOptions, e: TeamEvent): boolean {
  const line = watchLine(e)
  if (!line) return true
  if (o.states && o.states.length > 0 && !o.states.includes(String(line.to))) return true
  if (o.agent && o.agent.length > 0 && !o.agent.includes(String(line.agent))) return true
  if (o.json) return o.write(JSON.stringify(line) + '\n')
  return o.write(
    `${localTime(Date.parse(line.ts), Date.now())}  #${line.seq}  ${oneLine(text(line.id).slice(0, 7))}  ${oneLine(text(line.device))}  ${oneLine(text(line.from ?? '-'))} → ${oneLine(text(line.to))}:${oneLine(text(line.reason))}  ${oneLine(text(line.title ?? ''))}\n`,
  )
}

/** A client LISTENing on cast_team: `dropped` on its error or end, `notified` on each notification. */
async function listen(url: string, dropped: () => void, notified: () => void): Promise<Client> {
  const c = await openClient(url)
  c.on('error', dropped)
  c.on('end', dropped)
  c.on('notification', notified)
  await c.query('LISTEN cast_team')
  return c
}

export async function watchTeam(o: TeamWatchOptions): Promise<void> {
  let pool: Pool | null = null
  let listener: Client | null = null
  let closed = false
  let last = o.since ?? -1
  let cursor: EventCursor | null = null
  let wake: (() => void) | null = null
  let failing: string | null = null
  const stop = (): void => {
    closed = true
    wake?.()
  }

  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') stop()
  })

  let lastRead = 0
  while (!closed) {
    // Coalesce: a flood of notifications wakes one read per gap.
    const gap = lastRead + MIN_GAP_MS - Date.now()
    if (gap > 0 && !failing) await new Promise((r) => setTimeout(r, gap))
    if (closed) break
    lastRead = Date.now()
    try {
      pool ??= await openPool(o.url, {max: 1})
      if (!listener) {
        // Set once LISTEN is issued: a drop before that leaves `listener` null as it is.
        let c: Client | null = null
        const dropped = (): void => {
          if (c !== null && listener === c) listener = null
          wake?.()
        }
        c = await listen(o.url, dropped, () => wake?.())
        listener = c
      }

      // Without --since: from what is there now on (nothing until a change).
      cursor ??= new EventCursor(last < 0 ? await lastEventSeq(pool) : last)
      for (;;) {
        const {events, snapshot} = await readEvents(pool, cursor.last, 500)
        for (const e of cursor.accept(events, snapshot, Date.now())) if (!printEvent(o, e)) return
        last = cursor.last
        if (events.length < 500 || cursor.waiting) break
      }

      if (failing) o.log(`team store reachable again; resumed after seq ${last}`)
      failing = null
    } catch (error) {
      const msg = cleanError(error, o.url)
      if (failing !== msg) o.log(`team store: ${msg}; retrying (resumes after seq ${last})`)
      failing = msg
      await listener?.end().catch(() => {})
      listener = null
      await pool?.end().catch(() => {})
      pool = null
    }

    if (closed) break
    // A notification, a dropped listener, or the poll (a notification lost in a reconnect).
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, failing ? 500 : cursor?.waiting ? 200 : 2000)
      wake = () => {
        clearTimeout(t)
        resolve()
      }
    })
    wake = null
  }

  await listener?.end().catch(() => {})
  await pool?.end().catch(() => {})
}
