/**
 * The inbox list: the tally line, then the sections in seed 000's order with their counts
 * (Questions, Pinned, New, Needs Input, Done, Working, Dormant, Idle; collapsed Snoozed,
 * Stashed, Killed), each card as `cast sessions` prints a row: state:reason, short id, title;
 * the ask line; the agent's state line with how many messages passed since; owners, runner,
 * device and last activity. Rows arrive in display order from the server.
 */
import {type Listing, type Outcome, readOnlyOf, type Session} from './api.js'
import type {Bucket} from './wire.js'
import {ago, fill, h, oneLine} from './dom.js'
import {measure, windowRows} from './window.js'

export const SECTIONS: readonly {bucket: Bucket; title: string; collapsed?: boolean}[] = [
  {bucket: 'questions', title: 'Questions'},
  {bucket: 'pinned', title: 'Pinned'},
  {bucket: 'new', title: 'New'},
  {bucket: 'needs_input', title: 'Needs Input'},
  {bucket: 'done', title: 'Done'},
  {bucket: 'working', title: 'Working'},
  {bucket: 'dormant', title: 'Dormant'},
  {bucket: 'idle', title: 'Idle'},
  {bucket: 'snoozed', collapsed: true, title: 'Snoozed'},
  {bucket: 'stashed', collapsed: true, title: 'Stashed'},
  {bucket: 'hidden', collapsed: true, title: 'Stashed (hidden)'},
  {bucket: 'killed', collapsed: true, title: 'Killed'},
  {bucket: 'dismissed', collapsed: true, title: 'Dismissed'},
]

export interface ListView {
  readonly listing: Listing
  readonly focus: string | null
  /** Sections the person opened or closed (by bucket): true open. */
  readonly open: ReadonlyMap<string, boolean>
  /** Sessions with a verb under way, and what it is. */
  readonly pending: ReadonlyMap<string, string>
  /** What a verb came to on the machine that runs the session, as it reported. */
  readonly outcomes: ReadonlyMap<string, Outcome>
  readonly home: string | null
}

export interface ListHandlers {
  onOpen(id: string): void
  onFocus(id: string): void
  onMenu(id: string, x: number, y: number): void
  onToggle(bucket: string): void
  onDrop(id: string, bucket: string): void
  onKillAll(): void
  onSwipe(id: string, direction: 'left' | 'right'): void
  /** The stalled card's one-click nudge (the catalog's nudge verb). */
  onNudge(id: string): void
}

export function isOpen(view: ListView, bucket: string): boolean {
  return view.open.get(bucket) ?? !SECTIONS.find((s) => s.bucket === bucket)?.collapsed
}

/** The rows the keyboard moves over: those of open sections, in order. */
export function navigable(view: ListView): Session[] {
  return view.listing.sessions.filter((s) => isOpen(view, s.bucket))
}

/** Draw the list; a windowed section (window.ts) that moved since it was last measured is drawn again. */
export function renderList(root: HTMLElement, view: ListView, on: ListHandlers): void {
  drawList(root, view, on)
  if (measure(root)) {
    drawList(root, view, on)
    measure(root)
  }
}

function drawList(root: HTMLElement, view: ListView, on: ListHandlers): void {
  const now = Date.now()
  const byBucket = new Map<string, Session[]>()
  for (const s of view.listing.sessions) {
    const rows = byBucket.get(s.bucket)
    if (rows) rows.push(s)
    else byBucket.set(s.bucket, [s])
  }
  const drops = new Set(view.listing.verbs.map((v) => v.drop_on).filter((b): b is Bucket => b !== null))
  const machines = manyMachines(view.listing)
  // The tally's parenthesis (pinned, live, filed) is a span of its own: a phone leaves it out (style.css).
  const more = view.listing.tally.indexOf(' (')
  const tally =
    more < 0 ? [view.listing.tally] : [view.listing.tally.slice(0, more), h('span', {class: 'tally-more'}, view.listing.tally.slice(more))]
  const parts: Node[] = [
    ...(view.listing.notice ? [h('p', {class: 'notice', id: 'notice', role: 'status'}, view.listing.notice)] : []),
    h('p', {class: 'tally', id: 'tally', title: view.listing.tally}, ...tally),
  ]
  for (const sec of SECTIONS) {
    const rows = byBucket.get(sec.bucket) ?? []
    // The page's first listing may hold only the head of each section: its count is the section's.
    const total = view.listing.sections?.[sec.bucket] ?? rows.length
    if (total === 0 && !drops.has(sec.bucket)) continue
    if (total === 0 && sec.collapsed) continue
    const open = isOpen(view, sec.bucket)
    const head = h(
      'h2',
      {class: 'section-head', 'data-bucket': sec.bucket},
      h(
        'button',
        {'aria-expanded': String(open), class: 'toggle', onclick: () => on.onToggle(sec.bucket), type: 'button'},
        `${open ? '▾' : '▸'} ${sec.title} `,
        h('span', {class: 'count'}, `(${total})`),
      ),
      sec.bucket === 'stashed' && total > 0 && (rows.length === 0 || rows.some((r) => readOnlyOf(view.listing, r.id) === null))
        ? h('button', {class: 'kill-all', onclick: () => on.onKillAll(), type: 'button'}, 'Kill all')
        : null,
    )
    const section = h('section', {class: `section s-${sec.bucket}`, 'data-bucket': sec.bucket}, head)
    if (drops.has(sec.bucket)) dropTarget(section, sec.bucket, on)
    if (open) section.append(...windowRows(sec.bucket, rows, (s) => card(s, view, now, on, machines), total - rows.length))
    parts.push(section)
  }

  if (view.listing.sessions.length === 0 && !view.listing.head) parts.push(h('p', {class: 'empty'}, 'Nothing in your inbox.'))
  fill(root, ...parts)
}

function dropTarget(section: HTMLElement, bucket: string, on: ListHandlers): void {
  section.addEventListener('dragover', (e) => {
    e.preventDefault()
    section.classList.add('drop')
  })
  section.addEventListener('dragleave', () => section.classList.remove('drop'))
  section.addEventListener('drop', (e) => {
    e.preventDefault()
    section.classList.remove('drop')
    const id = e.dataTransfer?.getData('text/x-cast-session')
    if (id) on.onDrop(id, bucket)
  })
}

/** The ask line as the CLI prints it (src/lib/views/views.ts renderRow). */
export function askLine(s: Session): string | null {
  const first = (t: string): string => oneLine(t.split('\n')[0] ?? '')
  if (!s.ask) return null
  if (s.ask.kind === 'decision') return `decide: ${first(s.ask.text)}`
  if (s.ask.kind === 'approval') return `approve ${first(s.ask.text)}?`
  if (s.ask.kind === 'question') return `asks: ${first(s.ask.text)}`
  return `error: ${first(s.ask.text)}`
}

function tildify(p: string | null, home: string | null): string {
  if (!p) return '?'
  return home && (p === home || p.startsWith(home + '/')) ? '~' + p.slice(home.length) : p
}

/**
 * True when a card should say which machine runs it: the listing holds sessions of more than one
 * machine, or its one machine is not the one serving the page (a one-machine inbox of this
 * machine's own sessions says nothing).
 */
export function manyMachines(l: Listing): boolean {
  const devices = new Set<string>()
  for (const s of l.sessions) if (s.device) devices.add(s.device)
  return devices.size > 1 || (devices.size === 1 && !devices.has(l.device))
}

export function metaLine(s: Session, me: string, now: number, home: string | null, machines = false): string {
  const bits = [
    ago(s.last_activity_at, now),
    `${s.messages} msg${s.messages === 1 ? '' : 's'}`,
    oneLine(tildify(s.cwd, home), 120),
    s.agent,
  ]
  if (s.live) bits.push('live')
  if (s.labels[0]) bits.push(`label ${oneLine(s.labels[0], 40)}`)
  if (s.owners.length > 0) bits.push(`owners ${oneLine(s.owners.join(', '), 120)}`)
  if (s.runner && s.runner.toLowerCase() !== me.toLowerCase()) bits.push(`run by ${oneLine(s.runner, 80)}`)
  if (s.device && machines) bits.push(`on ${oneLine(s.device, 60)}`)
  if (s.snoozed_until && s.bucket === 'snoozed') bits.push(`until ${new Date(s.snoozed_until).toLocaleString()}`)
  return bits.join('  ·  ')
}

/**
 * What a stall reason asks of the person, where no ask line says it: a stalled session offers its
 * nudge (a button; key c), a blocked one that asks nothing says so.
 */
function stallLine(s: Session, writable: boolean, on: ListHandlers): HTMLElement | null {
  if (s.state !== 'needs_input') return null
  if (s.reason === 'blocked_unclear') return h('div', {class: 'ask ask-blocked'}, 'blocked, and asks nothing: open it to see why')
  if (s.reason !== 'stalled') return null
  const nudge = (e: Event): void => {
    e.stopPropagation()
    on.onNudge(s.id)
  }
  return h(
    'div',
    {class: 'ask ask-stalled'},
    'its background work finished; its turn never resumed  ',
    writable ? h('button', {class: 'nudge', onclick: nudge, title: 'Nudge (c)', type: 'button'}, 'Nudge') : null,
  )
}

function card(s: Session, view: ListView, now: number, on: ListHandlers, machines: boolean): HTMLElement {
  const detail = s.quiet ? 'quiet' : s.reason
  const ask = askLine(s)
  const sl = s.state_line
  const pending = view.pending.get(s.id)
  // A teammate's session I neither own nor run: shown, never acted on (no drag, no verb).
  const readOnly = readOnlyOf(view.listing, s.id)
  const el = h(
    'article',
    {
      'aria-selected': String(view.focus === s.id),
      class: `card st-${s.state}${view.focus === s.id ? ' focus' : ''}${pending ? ' pending' : ''}${readOnly === null ? '' : ' read-only'}`,
      'data-id': s.id,
      draggable: readOnly === null ? 'true' : 'false',
      role: 'option',
      tabindex: view.focus === s.id ? 0 : -1,
    },
    h(
      'div',
      {class: 'head'},
      h('span', {class: 'state'}, `${s.state.replace('_', ' ')}:${detail}`),
      h('span', {class: 'sid'}, s.short_id),
      h('span', {class: 'title'}, s.title === null ? '(untitled)' : oneLine(s.title)),
      s.pinned ? h('span', {class: 'pin'}, 'pinned') : null,
    ),
    ask ? h('div', {class: `ask ask-${s.ask!.kind}`}, ask) : null,
    stallLine(s, readOnly === null, on),
    sl
      ? h(
          'div',
          {class: 'stateline'},
          `${sl.status}: ${oneLine(sl.text.split('\n')[0] ?? '')}`,
          sl.messages_since > 0 ? h('span', {class: 'since'}, `  (${sl.messages_since} msgs since)`) : null,
        )
      : null,
    h('div', {class: 'meta'}, metaLine(s, view.listing.me, now, view.home, machines)),
    readOnly === null ? null : h('div', {class: 'readonly-line'}, oneLine(readOnly, 300)),
    pending ? h('div', {class: 'pending-line', role: 'status'}, `${pending}…`) : null,
    outcomeLine(view.outcomes.get(s.id)),
  )
  el.addEventListener('click', () => (view.focus === s.id ? on.onOpen(s.id) : on.onFocus(s.id)))
  el.addEventListener('dblclick', () => on.onOpen(s.id))
  el.addEventListener('contextmenu', (e) => {
    e.preventDefault()
    on.onMenu(s.id, e.clientX, e.clientY)
  })
  if (readOnly === null) el.addEventListener('dragstart', (e) => e.dataTransfer?.setData('text/x-cast-session', s.id))
  swipe(el, (d) => on.onSwipe(s.id, d))
  return el
}

/** A horizontal swipe of at least 80 px: left stashes, right pins (seed 000's phone app). */
function swipe(el: HTMLElement, done: (d: 'left' | 'right') => void): void {
  let x0: number | null = null
  let y0 = 0
  el.addEventListener(
    'touchstart',
    (e) => {
      x0 = e.touches[0]?.clientX ?? null
      y0 = e.touches[0]?.clientY ?? 0
    },
    {passive: true},
  )
  el.addEventListener('touchend', (e) => {
    const t = e.changedTouches[0]
    if (x0 === null || !t) return
    const dx = t.clientX - x0
    if (Math.abs(dx) > 80 && Math.abs(t.clientY - y0) < 40) done(dx < 0 ? 'left' : 'right')
    x0 = null
  })
}

/** The result another machine reported for a verb on this session. */
export function outcomeLine(o: Outcome | undefined): HTMLElement | null {
  return o ? h('div', {class: `outcome ${o.ok ? 'ok' : 'refused'}`, role: 'status'}, o.text) : null
}
