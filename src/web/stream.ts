/** The live listing (Server-Sent Events from /api/events) and the presence picker of the header. */
import {get, type Listing} from './api.js'
import {$, fill, h} from './dom.js'

export async function presence(): Promise<void> {
  const out = await get('/api/presence')
  const select = $('#presence') as HTMLSelectElement
  if (!out.ok) return
  const p = out.json as {presence: string; presences: {name: string}[]}
  const names = [...new Set(['online', 'away', ...p.presences.map((x) => x.name)])]
  fill(select, ...names.map((n) => h('option', {selected: n === p.presence, value: n}, n)))
}

/**
 * The first paint: the head of the listing the server put in the page (a JSON data block, parsed,
 * never run), drawn at once. Returns its seq, after which the stream resumes; undefined when the
 * page holds none (the stream's snapshot draws the page).
 */
export function firstListing(state: {listing: Listing | null; home: string | null}, draw: () => void): number | undefined {
  const first = document.getElementById('first-listing')?.textContent
  if (!first) return undefined
  try {
    const l = JSON.parse(first) as Listing & {home?: string}
    state.listing = l
    state.home = l.home ?? null
    draw()
    return l.seq
  } catch {
    return undefined
  }
}

/** `since`: the seq of the listing the page drew already (the stream sends what came after it, then the listing). */
export function live(state: {listing: Listing | null; home: string | null; palette: unknown}, draw: () => void, since?: number): void {
  const events = new EventSource(since === undefined ? '/api/events' : `/api/events?since=${since}`)
  const take = (e: MessageEvent<string>): void => {
    const l = JSON.parse(e.data) as Listing & {home?: string}
    state.listing = l
    state.home = l.home ?? null
    $('#conn').textContent = 'live'
    if (!state.palette) draw()
  }
  events.addEventListener('snapshot', take)
  events.addEventListener('listing', take)
  // A transition moves its card at once; the listing that follows brings the order and the counts.
  events.addEventListener('transition', (e) => {
    const t = JSON.parse((e as MessageEvent<string>).data) as {id: string; to: string; reason: string; bucket: string}
    const s = state.listing?.sessions.find((x) => x.id === t.id)
    if (s) Object.assign(s, {bucket: t.bucket, reason: t.reason, state: t.to})
    // Patch the card in place (a full draw of a long list waits for the listing).
    const card = document.querySelector(`.card[data-id="${CSS.escape(t.id)}"]`)
    if (!card || !s) return
    card.className = card.className.replace(/\bst-\w+/, `st-${s.state}`) + ' moved'
    const label = card.querySelector('.state')
    if (label) label.textContent = `${s.state.replace('_', ' ')}:${s.reason}`
  })
  events.addEventListener('error', () => {
    $('#conn').textContent = 'reconnecting…'
  })
}
