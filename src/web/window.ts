/**
 * Windowing: a section with many cards draws only those near the viewport, between two spacers
 * whose heights stand for the rest, so 10,000 sessions draw as fast as a few dozen. A card's
 * height is measured once drawn (a guess before); where each section's rows start is measured
 * after each draw. Sections under WINDOW_FROM cards draw every card.
 */
import type {Session} from './api.js'
import {h} from './dom.js'

export const WINDOW_FROM = 200
/** How far beyond the viewport cards are drawn (px), so a scroll shows drawn cards at once. */
const OVERSCAN = 800
/** A card's height with its gap (px) until it is measured. */
const GUESS = 80

/** How many cards are drawn on each side of an anchor. */
const AROUND = 15

let anchor: string | null = null

/** The next draw puts its window around this card (then the caller scrolls it into view). */
export function anchorOn(id: string | null): void {
  anchor = id
}

const pitch = new Map<string, number>()
/** Where each windowed section's rows start (document y), as last measured. */
const tops = new Map<string, number>()
/** Each windowed section's rows, as last drawn. */
const drawn = new Map<string, readonly Session[]>()

const heightOf = (s: Session): number => pitch.get(s.id) ?? GUESS

function spacer(bucket: string, edge: 'top' | 'bottom' | 'later', px: number): HTMLElement {
  const el = h('div', {'aria-hidden': 'true', class: `spacer spacer-${edge}`, 'data-bucket': bucket})
  el.style.height = `${Math.round(px)}px`
  return el
}

/**
 * The cards of a section to draw: all when few; else those near the viewport, between spacers.
 * `later`: cards of the section the page has not received yet (the first listing's head), held
 * by a spacer below.
 */
export function windowRows(bucket: string, rows: readonly Session[], make: (s: Session) => HTMLElement, later = 0): Node[] {
  if (rows.length < WINDOW_FROM) {
    drawn.delete(bucket)
    tops.delete(bucket)
    const out: Node[] = rows.map(make)
    if (later > 0) out.push(spacer(bucket, 'later', later * GUESS))
    return out
  }

  drawn.set(bucket, rows)
  const at = anchor === null ? -1 : rows.findIndex((r) => r.id === anchor)
  // Not measured yet: draw none of them; the caller measures and draws again.
  const top = tops.get(bucket) ?? Number.POSITIVE_INFINITY
  const from = window.scrollY - OVERSCAN - top
  const to = window.scrollY + window.innerHeight + OVERSCAN - top
  let y = 0
  let i = 0
  // Around the anchor (a card the keyboard moved to), else around the scroll position.
  const first = (k: number): boolean => (at >= 0 ? k < at - AROUND : y + heightOf(rows[k]!) < from)
  while (i < rows.length && first(i)) y += heightOf(rows[i++]!)
  const out: Node[] = [spacer(bucket, 'top', y)]
  let j = i
  while (j < rows.length && (at >= 0 ? j <= at + AROUND : y < to)) {
    out.push(make(rows[j]!))
    y += heightOf(rows[j++]!)
  }

  let rest = 0
  for (let k = j; k < rows.length; k++) rest += heightOf(rows[k]!)
  out.push(spacer(bucket, 'bottom', rest))
  return out
}

/** After a draw: measure the drawn cards and where windowed sections start; true when a section moved (draw again). */
export function measure(root: HTMLElement): boolean {
  let moved = false
  for (const el of root.querySelectorAll<HTMLElement>('.spacer-top')) {
    const bucket = el.dataset['bucket']!
    const top = el.getBoundingClientRect().top + window.scrollY
    if (Math.abs((tops.get(bucket) ?? Number.NEGATIVE_INFINITY) - top) > 2) moved = true
    tops.set(bucket, top)
  }

  if (drawn.size === 0) return moved
  const cards = [...root.querySelectorAll<HTMLElement>('.card')]
  for (let i = 0; i < cards.length; i++) {
    const next = cards[i + 1]
    const el = cards[i]!
    // The distance to the next card is the height with the gap between them.
    const p = next && next.parentElement === el.parentElement ? next.offsetTop - el.offsetTop : el.offsetHeight + 6
    if (p > 0) pitch.set(el.dataset['id']!, p)
  }

  return moved
}

/** Windowed sections draw the cards a scroll brings into view, once per frame (when `ready`). */
export function drawOnScroll(ready: () => boolean, draw: () => void): void {
  let frame = false
  window.addEventListener(
    'scroll',
    () => {
      if (frame || drawn.size === 0 || !ready()) return
      frame = true
      requestAnimationFrame(() => {
        frame = false
        draw()
      })
    },
    {passive: true},
  )
}
