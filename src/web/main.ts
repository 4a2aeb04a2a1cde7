/**
 * The page of `cast web`: the listing from the server (the JSON `cast sessions --json` prints),
 * kept live by the event stream, drawn by render.ts; the answer view (answer.ts), the palette
 * (palette.ts), the right-click menu and the keys (keys.ts). Every verb is one POST to
 * /api/verb, which runs the cast command of the same name on the server.
 */
import {type Detail, get, type Listing, type Outcome, post, readOnlyOf, resultLine, type Session, type VerbInfo} from './api.js'
import {renderAnswer} from './answer.js'
import {renderMenu} from './menu.js'
import {firstListing, live, presence} from './stream.js'
import {anchorOn, drawOnScroll} from './window.js'
import {awaitOutcome, type Queued, teamAction} from './remote.js'
import {refuseReadOnly} from './readonly.js'
import {$, fill, h, oneLine} from './dom.js'
import {bindKeys, shortcut} from './keys.js'
import {type PaletteItem, paletteItems, type PaletteMode, renderPalette} from './palette.js'
import {isOpen, type ListView, manyMachines, navigable, renderList} from './render.js'
import {setBadge, setupPush} from './push.js'

interface State {
  listing: Listing | null
  home: string | null
  focus: string | null
  answering: string | null
  detail: Detail | null
  open: Map<string, boolean>
  pending: Map<string, string>
  /** What the last verb on a card came to, when another machine carried it out (shown on the card). */
  outcomes: Map<string, Outcome>
  palette: {mode: PaletteMode; query: string; selected: number; items: PaletteItem[]} | null
  menu: {id: string} | null
  message: string
}

export const state: State = {
  answering: null,
  detail: null,
  focus: null,
  home: null,
  listing: null,
  menu: null,
  message: '',
  open: new Map(),
  outcomes: new Map(),
  palette: null,
  pending: new Map(),
}

let focusIndex = 0

const view = (): ListView => ({
  focus: state.focus,
  home: state.home,
  listing: state.listing!,
  open: state.open,
  outcomes: state.outcomes,
  pending: state.pending,
})

export function rows(): Session[] {
  return state.listing ? navigable(view()) : []
}

export function focused(): Session | null {
  return state.listing?.sessions.find((s) => s.id === (state.answering ?? state.focus)) ?? null
}

export function verbByName(name: string): VerbInfo | undefined {
  return state.listing?.verbs.find((v) => v.name === name)
}

export function say(message: string): void {
  state.message = message
  const bar = $('#status')
  bar.textContent = oneLine(message, 2000)
  bar.hidden = message === ''
}

export function draw(): void {
  const l = state.listing
  if (!l) return
  // The page title counts what needs you: the sessions waiting on you (questions are among them).
  const waiting = l.counts['needs_input'] ?? 0
  document.title = `${waiting > 0 ? `(${waiting}) ` : ''}cast inbox`
  setBadge(l.counts['questions'] ?? 0)
  $('#me').textContent = `${oneLine(l.me, 80)}${l.team ? ' · team view' : ''}`
  const list = $('#list')
  const answer = $('#answer')
  const s = state.answering ? l.sessions.find((x) => x.id === state.answering) : undefined
  if (state.answering && s) {
    list.hidden = true
    answer.hidden = false
    renderAnswer(
      answer,
      s,
      state.detail,
      l.me,
      state.home,
      state.pending.get(s.id),
      state.outcomes.get(s.id),
      readOnlyOf(l, s.id),
      {
        approve: () => void act('approve', s, undefined, true),
        close: closeAnswer,
        answer: (a, asked) => void choose(s, a, asked),
        choose: (n) => void choose(s, n),
        decide: (n) => void decide(s, n),
        deny: () => void act('deny', s, undefined, true),
        send: (text, then) => void reply(s, text, then),
      },
      manyMachines(l),
    )
    return
  }

  answer.hidden = true
  list.hidden = false
  // A focused card that left the view (stashed, snoozed) hands the focus to the one now in its place.
  const order = rows()
  if (!state.focus || !order.some((r) => r.id === state.focus)) state.focus = order[Math.min(focusIndex, order.length - 1)]?.id ?? null
  focusIndex = Math.max(
    0,
    order.findIndex((r) => r.id === state.focus),
  )
  renderList(list, view(), {
    onDrop: (id, bucket) => {
      const v = l.verbs.find((x) => x.drop_on === bucket)
      const row = l.sessions.find((x) => x.id === id)
      if (v && row) void act(v.name, row)
    },
    onFocus: (id) => setFocus(id),
    onKillAll: () => void killAll(),
    onMenu: (id, x, y) => openMenu(id, x, y),
    onNudge: (id) => {
      const row = l.sessions.find((x) => x.id === id)
      if (row && !refuseReadOnly(state.listing, row, say)) void act('nudge', row)
    },
    onOpen: (id) => void openAnswer(id),
    onSwipe: (id, d) => {
      const row = l.sessions.find((x) => x.id === id)
      if (row && !refuseReadOnly(state.listing, row, say)) void act(d === 'left' ? 'stash' : row.pinned ? 'unpin' : 'pin', row)
    },
    onToggle: (bucket) => {
      state.open.set(bucket, !isOpen(view(), bucket))
      draw()
    },
  })
  list.querySelector<HTMLElement>('.card.focus')?.focus({preventScroll: true})
}

export function setFocus(id: string | null): void {
  state.focus = id
  draw()
  // A card outside the drawn window: draw the window around it, then scroll it into view.
  if (id && !document.querySelector('.card.focus')) {
    anchorOn(id)
    draw()
    anchorOn(null)
  }

  document.querySelector('.card.focus')?.scrollIntoView({block: 'nearest'})
}

export async function openAnswer(id: string): Promise<void> {
  state.answering = id
  state.focus = id
  state.detail = null
  draw()
  const got = await get(`/api/session/${encodeURIComponent(id)}`)
  if (state.answering !== id) return
  state.detail = got.ok ? (got.json as Detail) : null
  draw()
}

export function closeAnswer(): void {
  state.answering = null
  state.detail = null
  draw()
}

/** The next session that waits on you after `id` (Questions, then Needs Input), or null. */
function nextWaiting(id: string): string | null {
  const list = rows()
  const at = list.findIndex((r) => r.id === id)
  const after = [...list.slice(at + 1), ...list.slice(0, Math.max(0, at))]
  return after.find((r) => r.id !== id && (r.bucket === 'questions' || r.bucket === 'needs_input'))?.id ?? null
}

function advance(from: string): void {
  const next = nextWaiting(from)
  if (next) void openAnswer(next)
  else {
    closeAnswer()
    say(state.message ? `${state.message.replace(/[.…]+$/, '')}. Nothing else waits on you.` : 'Nothing else waits on you.')
  }
}

/** Run a verb of the catalog on a session (or none, for undo); asks for its value or a confirmation first. */
export async function act(name: string, s: Session | null, value?: string, advanceAfter = false): Promise<boolean> {
  const v = verbByName(name)
  if (!v) return false
  if (!v.global && !s) return false
  if (!v.global && refuseReadOnly(state.listing, s, say)) return false
  const target = name === 'pin' && s?.pinned ? verbByName('unpin')! : v
  if (target.takes === 'confirm') {
    openPalette({kind: 'confirm', verb: target})
    return false
  }

  if (value === undefined && target.takes !== 'none') {
    openPalette({kind: 'value', verb: target})
    return false
  }

  return run(target, s, value, false, advanceAfter)
}

async function run(
  v: VerbInfo,
  s: Session | null,
  value: string | undefined,
  confirmed: boolean,
  advanceAfter: boolean,
  queue = false,
): Promise<boolean> {
  const key = s?.id ?? 'undo'
  if (!v.global && refuseReadOnly(state.listing, s, say)) return false
  // Where the cursor is, when it is on this row: a verb that files the row away leaves it there.
  const at = s && state.focus === s.id && !state.answering ? rows().findIndex((r) => r.id === s.id) : -1
  // Its section now (the stream may move the row before the verb's answer comes back).
  const was = s?.bucket
  state.pending.set(key, `${v.label}`)
  say(`${v.label}…`)
  draw()
  const body = {confirmed, expect: s ? `${s.state}:${s.reason}` : undefined, queue, session: s?.id, value, verb: v.name}
  state.outcomes.delete(key)
  const out = await post('/api/verb', body)
  const queued = out.ok ? teamAction(out.json) : null
  if (queued) return followRemote(v, key, queued, advanceAfter)
  state.pending.delete(key)
  say(out.ok ? resultLine(v.label, out.json) : `${v.label} refused: ${out.error.message}`)
  if (out.ok && s && at >= 0) fileAway(s.id, was, out.json, at)
  if (out.ok && advanceAfter && s) advance(s.id)
  else draw()
  return out.ok
}

/**
 * The row a verb moved to another section (the verb's answer carries it, as `cast <verb> --json`
 * prints it) is drawn there at once, and the cursor stays at the position it had: on the row that
 * now takes that place, as when a stash takes the row out of the list (draw). The listing that
 * follows on the stream brings the order.
 */
function fileAway(id: string, was: string | undefined, json: unknown, at: number): void {
  const o = json && typeof json === 'object' ? (json as {session?: unknown; sessions?: unknown}) : {}
  const now = (Array.isArray(o.sessions) ? (o.sessions as Session[]) : o.session ? [o.session as Session] : []).find((x) => x?.id === id)
  const row = state.listing?.sessions.find((x) => x.id === id)
  if (!now || !row || now.bucket === was || state.focus !== id) return
  Object.assign(row, now)
  const rest = rows().filter((r) => r.id !== id)
  state.focus = rest[Math.min(at, rest.length - 1)]?.id ?? null
}

/** Pending until the machine that runs the agent reports (remote.ts); then what it reported, on the card. */
async function followRemote(v: VerbInfo, key: string, q: Queued, advanceAfter: boolean): Promise<boolean> {
  const where = oneLine(q.device, 60)
  state.pending.set(key, `${v.label}: asked ${where}, waiting for it to confirm`)
  say(`${v.label}: asked ${where} (action ${q.action_id}), waiting for it to confirm…`)
  draw()
  const outcome = await awaitOutcome(v.name, q)
  state.pending.delete(key)
  state.outcomes.set(key, outcome)
  say(`${v.label}: ${outcome.text}`)
  if (outcome.ok && advanceAfter && state.answering === key) advance(key)
  else draw()
  return outcome.ok
}

async function reply(s: Session, text: string, then: 'stay' | 'advance' | 'stash' | 'queue'): Promise<void> {
  const ok = await run(verbByName('reply')!, s, text, false, then === 'advance', then === 'queue')
  const area = document.querySelector<HTMLTextAreaElement>('#answer textarea')
  if (ok && area && area.value === text) area.value = ''
  if (ok && then === 'stash') {
    await run(verbByName('stash')!, {...s, state: 'working', reason: 'turn_pending'}, undefined, false, false)
    advance(s.id)
  }
}

async function decide(s: Session, choice: number): Promise<void> {
  if (refuseReadOnly(state.listing, s, say) || !s.decision) return
  state.pending.set(s.id, 'Answering')
  draw()
  const out = await post('/api/decide', {card: s.decision.id, choice, session: s.id})
  state.pending.delete(s.id)
  say(out.ok ? `Answered: option ${choice}` : `Refused: ${out.error.message}`)
  if (out.ok) advance(s.id)
  else draw()
}

/** An option of the agent's question, or one answer per question of an ask of several, picked in its terminal (cast choose). */
async function choose(s: Session, choice: number | number[][], asked?: unknown): Promise<void> {
  if (refuseReadOnly(state.listing, s, say)) return
  const many = Array.isArray(choice)
  state.pending.set(s.id, many ? 'Answering' : `Choosing ${choice}`)
  draw()
  const out = await post('/api/choose', many ? {answers: choice, asked, session: s.id} : {choice, session: s.id})
  state.pending.delete(s.id)
  const j = out.ok ? (out.json as {label?: string; answers?: {labels: string[]}[]}) : null
  const label = oneLine(j?.answers ? j.answers.map((a) => a.labels.join(', ')).join('; ') : (j?.label ?? ''), 300)
  say(out.ok ? (many ? `Answered: ${label}` : `Chose ${choice}. ${label}`) : `Choose refused: ${out.error.message}`)
  if (out.ok) advance(s.id)
  else draw()
}

async function killAll(): Promise<void> {
  const stashed = state.listing?.sessions.filter((s) => s.bucket === 'stashed' && readOnlyOf(state.listing, s.id) === null) ?? []
  if (stashed.length === 0 || !window.confirm(`Kill all ${stashed.length} stashed sessions? Each agent is stopped.`)) return
  for (const s of stashed) await run(verbByName('kill')!, s, undefined, true, false)
}

export function openPalette(mode: PaletteMode): void {
  state.menu = null
  $('#menu').hidden = true
  state.palette = {items: [], mode, query: '', selected: 0}
  drawPalette()
}

export function closePalette(): void {
  state.palette = null
  const root = $('#palette')
  root.hidden = true
  fill(root)
  draw()
}

export function drawPalette(): void {
  const p = state.palette
  if (!p || !state.listing) return
  const l = state.listing
  const labels = [...new Set(l.sessions.flatMap((s) => s.labels))]
  p.items = paletteItems(p.mode, p.query, {
    // A teammate's session I may not act on: the palette offers it no verb (readonly.ts).
    focus: readOnlyOf(l, focused()?.id) === null ? focused() : null,
    labels,
    openSession: (id) => {
      closePalette()
      void openAnswer(id)
    },
    runVerb: (v, value) => {
      const target = focused()
      if (v.takes === 'confirm' && p.mode.kind !== 'confirm') return openPalette({kind: 'confirm', verb: v})
      closePalette()
      if (v.takes === 'confirm') void run(v, target, undefined, true, false)
      else void act(v.name, target, value)
    },
    sessions: l.sessions,
    verbs: l.verbs,
  })
  p.selected = Math.min(p.selected, Math.max(0, p.items.length - 1))
  renderPalette($('#palette'), p.mode, p.query, p.selected, p.items, (q) => {
    p.query = q
    p.selected = 0
    drawPalette()
  })
}

/** The right-click menu (menu.ts) for a card. */
export function openMenu(id: string, x: number, y: number): void {
  const s = state.listing?.sessions.find((r) => r.id === id)
  if (!s) return
  state.focus = id
  state.menu = {id}
  renderMenu($('#menu'), s, state.listing!.verbs, readOnlyOf(state.listing, s.id), x, y, (name) => {
    state.menu = null
    void act(name, s)
  })
}

function boot(): void {
  ;($('#presence') as HTMLSelectElement).addEventListener('change', (e) => {
    const name = (e.target as HTMLSelectElement).value
    void post('/api/presence', {name}).then((out) => say(out.ok ? `Presence: ${name}` : `Presence refused: ${out.error.message}`))
  })
  // The shortcuts under this platform's names (Ctrl+K off macOS); a phone shows the word alone (style.css).
  const search = $('#palette-button')
  fill(search, h('span', {class: 'word'}, 'Search'), ' ', h('kbd', {class: 'key-hint'}, shortcut('K')))
  search.title = `Search and verbs (${shortcut('K')})`
  $('#undo-button').title = `Undo (${shortcut('Z')})`
  search.addEventListener('click', () => openPalette({kind: 'search'}))
  $('#undo-button').addEventListener('click', () => void act('undo', null))
  document.addEventListener('click', (e) => {
    if (state.menu && !(e.target as Element).closest('#menu')) {
      state.menu = null
      $('#menu').hidden = true
    }
  })
  bindKeys({
    act: (name, s, value, adv) => void act(name, s, value, adv),
    answering: () => state.answering !== null,
    closeAnswer,
    closeMenu: () => {
      state.menu = null
      $('#menu').hidden = true
    },
    closePalette,
    choose: (n) => {
      const s = focused()
      const choices = state.detail?.session.id === s?.id ? state.detail?.question?.choices : null
      if (!s || !choices || n > choices.length) return false
      void choose(s, n)
      return true
    },
    decide: (n) => {
      const s = focused()
      if (s) void decide(s, n)
    },
    focused,
    help: () => openPalette({kind: 'search'}),
    menuOpen: () => state.menu !== null,
    open: (id) => void openAnswer(id),
    palette: (mode) => {
      const v = mode === 'snooze' ? verbByName('snooze') : mode === 'label' ? verbByName('label') : undefined
      if (mode !== 'search' && !focused()) return
      openPalette(v ? {kind: 'value', verb: v} : {kind: 'search'})
    },
    paletteMove: (by) => {
      const p = state.palette
      if (!p || p.items.length === 0) return
      p.selected = (p.selected + by + p.items.length) % p.items.length
      drawPalette()
    },
    paletteOpen: () => state.palette !== null,
    paletteRun: () => state.palette?.items[state.palette.selected]?.run(),
    rows,
    setFocus,
    verbs: () => state.listing?.verbs ?? [],
  })
  drawOnScroll(() => !state.answering && !state.palette, draw)
  firstListing(state, draw)
  live(state, draw)
  void presence()
  setupPush(say)
}

boot()
