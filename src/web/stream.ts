/** The live listing (Server-Sent Events from /api/events, read with fetch) and the presence picker of the header. */
import {apiHeaders, get, type Listing} from './api.js'
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
 * The first paint: the head of the listing (GET /api/listing?head, with the key: the page's
 * HTML holds no data, since the cookie alone serves it), drawn as soon as it comes unless the
 * stream's snapshot came first.
 */
export function firstListing(state: {listing: Listing | null; home: string | null}, draw: () => void): void {
  void get('/api/listing?head').then((out) => {
    if (!out.ok || state.listing !== null) return
    const l = out.json as Listing & {home?: string}
    state.listing = l
    state.home = l.home ?? null
    draw()
  })
}

/** One server-sent event: its name, data and id (the SSE format, read from a fetch body). */
interface StreamEvent {
  event: string
  data: string
  id: string | null
}

/**
 * Read /api/events with fetch() (EventSource cannot send the key header), as EventSource would:
 * each event to `on`, and after a drop a reconnect that resumes after the last id. A 401 (signed
 * out, revoked, expired) ends it.
 */
function follow(since: number | undefined, on: (e: StreamEvent) => void, status: (text: string) => void): void {
  let last: string | null = since === undefined ? null : String(since)
  const once = async (): Promise<boolean> => {
    const res = await fetch(last === null ? '/api/events' : `/api/events?since=${encodeURIComponent(last)}`, {
      cache: 'no-store',
      credentials: 'same-origin',
      headers: apiHeaders(),
    })
    if (res.status === 401 || res.status === 403) {
      status('signed out')
      return false
    }

    if (!res.ok || !res.body) return true
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    let buf = ''
    let cur: StreamEvent = {data: '', event: 'message', id: null}
    for (;;) {
      const {done, value} = await reader.read()
      if (done) return true
      buf += value
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '')
        buf = buf.slice(nl + 1)
        if (line === '') {
          if (cur.id !== null) last = cur.id
          if (cur.data !== '') on(cur)
          cur = {data: '', event: 'message', id: null}
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':')
          const field = colon < 0 ? line : line.slice(0, colon)
          const text = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'event') cur.event = text
          else if (field === 'data') cur.data += cur.data === '' ? text : `\n${text}`
          else if (field === 'id') cur.id = text
        }
      }
    }
  }

  const loop = async (): Promise<void> => {
    for (;;) {
      const again = await once().catch(() => true)
      if (!again) return
      status('reconnecting…')
      await new Promise((r) => setTimeout(r, 1000))
    }
  }

  void loop()
}

/** `since`: the seq of the listing the page drew already (the stream sends what came after it, then the listing). */
export function live(state: {listing: Listing | null; home: string | null; palette: unknown}, draw: () => void, since?: number): void {
  const take = (data: string): void => {
    const l = JSON.parse(data) as Listing & {home?: string}
    state.listing = l
    state.home = l.home ?? null
    $('#conn').textContent = 'live'
    if (!state.palette) draw()
  }

  // A transition moves its card at once; the listing that follows brings the order and the counts.
  const transition = (data: string): void => {
    const t = JSON.parse(data) as {id: string; to: string; reason: string; bucket: string}
    const s = state.listing?.sessions.find((x) => x.id === t.id)
    if (s) Object.assign(s, {bucket: t.bucket, reason: t.reason, state: t.to})
    // Patch the card in place (a full draw of a long list waits for the listing).
    const card = document.querySelector(`.card[data-id="${CSS.escape(t.id)}"]`)
    if (!card || !s) return
    card.className = card.className.replace(/\bst-\w+/, `st-${s.state}`) + ' moved'
    const label = card.querySelector('.state')
    if (label) label.textContent = `${s.state.replace('_', ' ')}:${s.reason}`
  }

  follow(
    since,
    (e) => {
      try {
        if (e.event === 'snapshot' || e.event === 'listing') take(e.data)
        else if (e.event === 'transition') transition(e.data)
      } catch {
        // A malformed event is skipped; the next listing redraws.
      }
    },
    (text) => {
      $('#conn').textContent = text
    },
  )
}
