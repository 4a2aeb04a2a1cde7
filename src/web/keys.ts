/**
 * The page's keys. In the list: j/k (and the arrows) move, Enter opens the answer view, each
 * verb's key from the catalog runs it on the focused card, Ctrl/Cmd+Z undoes (cast undo's
 * history), Ctrl/Cmd+K opens the palette, Alt+Z and Ctrl+L open it in the snooze and label
 * modes, ? lists the keys. In the answer view: y approves and n deny a permission prompt, a digit
 * picks a decision's option, Esc goes back. In the palette: ↑/↓ pick, Enter runs, Esc closes.
 */
import type {Session, VerbInfo} from './api.js'

export interface KeyContext {
  rows(): Session[]
  focused(): Session | null
  answering(): boolean
  paletteOpen(): boolean
  menuOpen(): boolean
  verbs(): VerbInfo[]
  setFocus(id: string): void
  open(id: string): void
  closeAnswer(): void
  act(name: string, s: Session | null, value?: string, advance?: boolean): void
  palette(mode: 'search' | 'snooze' | 'label'): void
  paletteMove(by: number): void
  paletteRun(): void
  closePalette(): void
  closeMenu(): void
  decide(n: number): void
  /** Pick option N of the open question in the answer view; false when it lists no such option. */
  choose(n: number): boolean
  help(): void
}

/** True on a Mac (or iPhone, iPad), where the modifier is ⌘; elsewhere it is Ctrl. */
export function onMac(nav: Pick<Navigator, 'platform' | 'userAgent'> = navigator): boolean {
  const platform = (nav as {userAgentData?: {platform?: string}}).userAgentData?.platform ?? nav.platform ?? ''
  return /mac|iphone|ipad|ipod/i.test(platform || nav.userAgent)
}

/** A shortcut as this platform names it: `⌘K` on a Mac, `Ctrl+K` elsewhere. */
export function shortcut(key: string, mac = onMac()): string {
  return mac ? `⌘${key}` : `Ctrl+${key}`
}

const typing = (e: KeyboardEvent): boolean => {
  const t = e.target as HTMLElement | null
  return t !== null && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.isContentEditable)
}

export function bindKeys(c: KeyContext): void {
  document.addEventListener('keydown', (e) => {
    const mod = e.ctrlKey || e.metaKey
    if (c.paletteOpen()) return paletteKey(c, e)
    if (c.menuOpen() && e.key === 'Escape') return c.closeMenu()
    if (mod && e.key.toLowerCase() === 'k') {
      e.preventDefault()
      return c.palette('search')
    }

    if (e.altKey && (e.code === 'KeyZ' || e.key.toLowerCase() === 'z')) {
      e.preventDefault()
      return c.palette('snooze')
    }

    if (e.ctrlKey && e.key.toLowerCase() === 'l') {
      e.preventDefault()
      return c.palette('label')
    }

    if (typing(e)) {
      if (e.key === 'Escape') (e.target as HTMLElement).blur()
      return
    }

    if (mod && e.key.toLowerCase() === 'z' && !e.shiftKey) {
      e.preventDefault()
      return c.act('undo', null)
    }

    if (mod || e.altKey) return
    if (c.answering()) return answerKey(c, e)
    listKey(c, e)
  })
}

function paletteKey(c: KeyContext, e: KeyboardEvent): void {
  if (e.key === 'Escape') {
    e.preventDefault()
    c.closePalette()
  } else if (e.key === 'ArrowDown' || (e.ctrlKey && e.key === 'n')) {
    e.preventDefault()
    c.paletteMove(1)
  } else if (e.key === 'ArrowUp' || (e.ctrlKey && e.key === 'p')) {
    e.preventDefault()
    c.paletteMove(-1)
  } else if (e.key === 'Enter') {
    e.preventDefault()
    c.paletteRun()
  }
}

function answerKey(c: KeyContext, e: KeyboardEvent): void {
  const s = c.focused()
  if (e.key === 'Escape') {
    e.preventDefault()
    return c.closeAnswer()
  }

  if (!s) return
  if (s.ask?.kind === 'approval' && (e.key === 'y' || e.key === 'n')) {
    e.preventDefault()
    return c.act(e.key === 'y' ? 'approve' : 'deny', s, undefined, true)
  }

  if (s.ask?.kind === 'question' && /^[1-9]$/.test(e.key) && c.choose(Number(e.key))) {
    e.preventDefault()
    return
  }

  if (s.decision && s.decision.answer === null && /^[1-9]$/.test(e.key)) {
    e.preventDefault()
    return c.decide(Number(e.key))
  }

  if (e.key === 'j' || e.key === 'k') {
    const list = c.rows()
    const at = list.findIndex((r) => r.id === s.id)
    const next = list[at + (e.key === 'j' ? 1 : -1)]
    if (next) c.open(next.id)
  }
}

function listKey(c: KeyContext, e: KeyboardEvent): void {
  const list = c.rows()
  const s = c.focused()
  const at = s ? list.findIndex((r) => r.id === s.id) : -1
  const move = (to: number): void => {
    const r = list[Math.max(0, Math.min(list.length - 1, to))]
    if (r) c.setFocus(r.id)
  }

  switch (e.key) {
    case 'j':
    case 'ArrowDown':
      e.preventDefault()
      return move(at + 1)
    case 'k':
    case 'ArrowUp':
      e.preventDefault()
      return move(at - 1)
    case 'g':
      return move(0)
    case 'G':
      return move(list.length - 1)
    case 'Enter':
      e.preventDefault()
      if (s) c.open(s.id)
      return
    case '?':
      return c.help()
    case 'Escape':
      return c.closeMenu()
    default:
      break
  }

  const v = c.verbs().find((x) => x.key === e.key)
  if (!v || (!v.global && !s)) return
  if (v.needs_approval && s?.ask?.kind !== 'approval') return
  if (v.for_reason !== null && s?.reason !== v.for_reason) return
  e.preventDefault()
  // A verb that needs a value or a confirmation opens the palette in that mode (main.ts act).
  c.act(v.name, v.global ? null : s)
}
