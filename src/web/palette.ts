/**
 * The palette (Ctrl/Cmd+K): one box that searches sessions (title, id, folder, state line) and
 * every verb of the catalog for the focused card, with modes for the verbs that need a value
 * (snooze picks a time, label a label, rename a title) or a confirmation (kill). Alt+Z and
 * Ctrl+L open it straight in the snooze and label modes.
 */
import type {Session, VerbInfo} from './api.js'
import {fill, h, oneLine} from './dom.js'

export type PaletteMode = {kind: 'search'} | {kind: 'value'; verb: VerbInfo} | {kind: 'confirm'; verb: VerbInfo}

export interface PaletteItem {
  readonly label: string
  readonly hint: string
  run(): void
}

export interface PaletteContext {
  readonly sessions: readonly Session[]
  readonly verbs: readonly VerbInfo[]
  readonly focus: Session | null
  readonly labels: readonly string[]
  openSession(id: string): void
  runVerb(verb: VerbInfo, value?: string): void
}

const TIMES = ['30m', '1h', '2h', '4h', 'tomorrow 9am', 'monday 9am']

export function paletteItems(mode: PaletteMode, query: string, c: PaletteContext): PaletteItem[] {
  const q = query.trim().toLowerCase()
  if (mode.kind === 'confirm') {
    const what = c.focus ? oneLine(c.focus.title ?? c.focus.short_id, 80) : ''
    return [{hint: 'Enter', label: `${mode.verb.label} ${what}: yes`, run: () => c.runVerb(mode.verb)}]
  }

  if (mode.kind === 'value') {
    const presets = mode.verb.takes === 'time' ? TIMES : mode.verb.takes === 'label' ? c.labels : []
    const typed = q === '' ? [] : [query.trim()]
    return [...new Set([...typed, ...presets.filter((p) => p.toLowerCase().includes(q))])].map((value) => ({
      hint: mode.verb.label,
      label: value,
      run: () => c.runVerb(mode.verb, value),
    }))
  }

  const verbs: PaletteItem[] = c.verbs
    .filter(
      (v) =>
        (v.global || c.focus !== null) &&
        (!v.needs_approval || c.focus?.ask?.kind === 'approval') &&
        (v.for_reason === null || c.focus?.reason === v.for_reason),
    )
    .filter((v) => q === '' || v.label.toLowerCase().includes(q) || v.name.includes(q))
    .map((v) => ({hint: `verb · ${v.key}`, label: v.label, run: () => c.runVerb(v)}))
  const sessions: PaletteItem[] = c.sessions
    .filter(
      (s) => q !== '' && [s.title ?? '', s.id, s.short_id, s.cwd ?? '', s.state_line?.text ?? ''].some((t) => t.toLowerCase().includes(q)),
    )
    .slice(0, 30)
    .map((s) => ({
      hint: `${s.state}:${s.reason} · ${s.short_id}`,
      label: oneLine(s.title ?? '(untitled)', 120),
      run: () => c.openSession(s.id),
    }))
  return [...sessions, ...verbs]
}

/** Draw the palette; returns the item list for the keyboard. */
export function renderPalette(
  root: HTMLElement,
  mode: PaletteMode,
  query: string,
  selected: number,
  items: readonly PaletteItem[],
  onInput: (q: string) => void,
): void {
  const title =
    mode.kind === 'search'
      ? 'Search sessions and verbs'
      : mode.kind === 'confirm'
        ? `${mode.verb.label}? ${mode.verb.summary}`
        : mode.verb.takes === 'time'
          ? 'Snooze for (30m, 2h) or until (tomorrow 9am)'
          : mode.verb.takes === 'label'
            ? 'Label as'
            : `${mode.verb.label}: type it, Enter`
  const input = h('input', {
    'aria-label': title,
    autocomplete: 'off',
    class: 'palette-input',
    placeholder: title,
    type: 'text',
    value: query,
  })
  input.addEventListener('input', () => onInput(input.value))
  fill(
    root,
    h(
      'div',
      {'aria-modal': 'true', class: 'palette', role: 'dialog'},
      h('p', {class: 'palette-title'}, title),
      input,
      h(
        'ul',
        {class: 'palette-list', role: 'listbox'},
        ...items
          .slice(0, 50)
          .map((it, i) =>
            h(
              'li',
              {'aria-selected': String(i === selected), class: i === selected ? 'sel' : '', onclick: () => it.run(), role: 'option'},
              h('span', {class: 'label'}, it.label),
              h('span', {class: 'hint'}, it.hint),
            ),
          ),
      ),
    ),
  )
  root.hidden = false
  input.focus()
  input.setSelectionRange(query.length, query.length)
}
