/**
 * The page's DOM helper: elements built with createElement and text set with textContent only
 * (never innerHTML), so agent text (titles, asks, state lines, messages) is always text. Control
 * and bidi characters are shown as in the CLI (src/core/model/wire.ts): `^[` for ESC, `<U+202E>`
 * for a bidi override, so nothing an agent writes can reorder or hide what the person reads.
 * The sanitizer is the CLI's own function (src/core/model/wire.ts, served beside the page as wire.js).
 */
import {oneLine as shownLine, visible as shownText} from './wire.js'

/** Multi-line agent text, controls made visible, cut at `max` characters. */
export function visible(s: string | null | undefined, max = 20_000): string {
  const t = s ?? ''
  return shownText(t.length > max ? `${t.slice(0, max)}… (${t.length - max} more characters)` : t)
}

/** One line of agent text for a card, controls made visible, cut at `max` characters. */
export function oneLine(s: string | null | undefined, max = 300): string {
  const t = s ?? ''
  return shownLine(t.length > max ? `${t.slice(0, max)}…` : t)
}

export type Child = Node | string | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | ((e: Event) => void)>

/** An element: attributes (on* are listeners; booleans set or leave out), children as nodes or text. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue
    if (typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (k === 'class') el.className = String(v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }

  for (const c of children)
    if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c)
  return el
}

/** Replace an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false))
}

export function $(selector: string): HTMLElement {
  return document.querySelector<HTMLElement>(selector)!
}

/** "5 min ago", "3 h ago", "2 d ago" from an ISO time. */
export function ago(iso: string | null, now: number): string {
  if (!iso) return 'never'
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  return `${Math.round(s / 86_400)} d ago`
}
