/**
 * The human `cast sessions --fleet`: the header and tally, one line per host that did not answer,
 * then the sections as `cast sessions` draws them, each row of another machine naming its host. Rows
 * are drawn from the JSON (src/core/model/wire.ts), every agent string through `oneLine`.
 */
import {formatAge, localTime} from '../../core/model/age.js'
import {formatTally} from '../../core/model/tally.js'
import {SECTION_TITLES, type WorkState} from '../../core/model/types.js'
import {oneLine} from '../../core/model/wire.js'
import type {FleetHostJson, FleetListingJson} from './fleet.js'
import type {FleetSessionJson} from './remote-listing.js'

export interface FleetStyle {
  readonly bold: (s: string) => string
  readonly dim: (s: string) => string
  readonly state: (state: WorkState, s: string) => string
}

const MARKERS: Record<WorkState, string> = {dormant: '◌', done: '●', idle: '·', needs_input: '○', working: '◐'}

/** "laptop: unreachable since 10:42 — ssh: connect … timed out (its listing from 10:40, stale)". */
export function hostLine(h: FleetHostJson, now: number): string | null {
  if (h.status === 'ok') return null
  const since = h.down_since === null ? '' : ` since ${localTime(Date.parse(h.down_since), now)}`
  const stale = h.stale && h.fetched_at !== null ? ` (its listing from ${localTime(Date.parse(h.fetched_at), now)}, stale)` : ''
  return oneLine(`${h.name}: ${h.status}${since} — ${h.error ?? ''}${stale}`)
}

function tildify(p: string | null, home: string): string {
  if (!p) return '?'
  return home && (p === home || p.startsWith(home + '/')) ? '~' + p.slice(home.length) : p
}

function row(s: FleetSessionJson, now: number, home: string, style: FleetStyle): string[] {
  const detail = s.quiet ? 'quiet' : String(s.reason)
  const head = `${style.state(s.state, `${MARKERS[s.state]} ${s.state.replace('_', ' ')}:${oneLine(detail)}`)}  ${style.bold(oneLine(s.short_id))}  ${s.title ? oneLine(s.title) : '(untitled)'}`
  const last = s.last_activity_at === null ? Number.NaN : Date.parse(s.last_activity_at)
  const bits = [Number.isNaN(last) ? 'never' : formatAge(now - last), `${s.messages} msg${s.messages === 1 ? '' : 's'}`]
  // A remote cwd is that machine's path: never shortened against this machine's home.
  bits.push(oneLine(s.host === null ? tildify(s.cwd, home) : (s.cwd ?? '?')), oneLine(String(s.agent)))
  if (s.live) bits.push(`live pid ${s.pid}`)
  if (s.labels.length > 0) bits.push(`label ${oneLine(s.labels[0]!)}`)
  if (s.owners.length > 0) bits.push(`owners ${oneLine(s.owners.join(', '))}`)
  if (s.host !== null) bits.push(s.stale ? `on ${s.host} (stale)` : `on ${s.host}`)
  const lines = [head, `   ${style.dim(bits.join('  ·  '))}`]
  if (s.state_line) lines.push(`   ${oneLine(String(s.state_line.status))}: ${oneLine(s.state_line.text.split('\n')[0] ?? '')}`)
  if (s.ask) {
    const text = oneLine(s.ask.text.split('\n')[0] ?? '')
    lines.push(s.ask.kind === 'approval' ? `   approve ${text}?` : s.ask.kind === 'error' ? `   error: ${text}` : `   asks: ${text}`)
  }

  return lines
}

export function renderFleet(listing: FleetListingJson, now: number, home: string, style: FleetStyle): string {
  const clock = new Date(now).toLocaleTimeString('en-GB', {hour: '2-digit', minute: '2-digit', second: '2-digit'})
  const up = listing.hosts.filter((h) => h.status === 'ok').length
  const out = [
    `cast sessions · fleet (this machine + ${up}/${listing.hosts.length} hosts) · ${oneLine(listing.me)}  ${clock}`,
    formatTally(listing.counts),
  ]
  for (const h of listing.hosts) {
    const line = hostLine(h, now)
    if (line !== null) out.push(line)
  }

  out.push('')
  const sizes = new Map<string, number>()
  for (const s of listing.sessions) sizes.set(s.bucket, (sizes.get(s.bucket) ?? 0) + 1)
  let current: string | null = null
  for (const s of listing.sessions) {
    if (s.bucket !== current) {
      current = s.bucket
      out.push(style.bold(`${SECTION_TITLES[s.bucket] ?? s.bucket.toUpperCase()} (${sizes.get(s.bucket)})`), '')
    }

    out.push(...row(s, now, home, style), '')
  }

  if (listing.sessions.length === 0) out.push('Nothing in the inbox of any machine under these filters.')
  return out.join('\n').trimEnd()
}
