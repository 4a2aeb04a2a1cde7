/** The right-click menu of a card: the catalog's verbs that apply to it. */
import type {Session, VerbInfo} from './api.js'
import {fill, h, oneLine} from './dom.js'

export function renderMenu(
  menu: HTMLElement,
  s: Session,
  all: readonly VerbInfo[],
  /** A teammate's session I may not act on: the menu says why and offers nothing. */
  readOnly: string | null,
  x: number,
  y: number,
  pick: (verb: string) => void,
): void {
  const verbs = all.filter(
    (v) =>
      readOnly === null &&
      !v.global &&
      (!v.needs_approval || s.ask?.kind === 'approval') &&
      (v.for_reason === null || s.reason === v.for_reason) &&
      !(v.name === 'pin' && s.pinned) &&
      !(v.name === 'unpin' && !s.pinned) &&
      !(v.name === 'restore' && s.filing === null) &&
      !(v.name === 'wake' && s.bucket !== 'snoozed'),
  )
  fill(
    menu,
    readOnly === null ? null : h('p', {class: 'menu-note', role: 'note'}, oneLine(readOnly, 300)),
    ...verbs.map((v) =>
      h(
        'button',
        {
          class: 'menu-item',
          onclick: () => {
            menu.hidden = true
            pick(v.name)
          },
          role: 'menuitem',
          type: 'button',
        },
        h('span', {}, v.label),
        h('kbd', {}, v.key),
      ),
    ),
  )
  menu.style.left = `${Math.min(x, window.innerWidth - 240)}px`
  menu.style.top = `${Math.min(y, window.innerHeight - Math.max(1, verbs.length) * 36 - 10)}px`
  menu.hidden = false
  menu.querySelector<HTMLElement>('button')?.focus()
}
