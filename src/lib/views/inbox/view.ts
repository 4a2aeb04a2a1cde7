/**
 * What `cast inbox` draws: the same tally, sections and rows as `cast sessions` (src/lib/views/views.ts),
 * a cursor, a prompt line and a key bar, cut to the terminal. Pure: state in, lines out. Readable
 * without colour: the cursor is a "›" in the margin, not only a reverse video bar.
 */
import {formatTally} from '../../../core/model/tally.js'
import {type Bucket, SECTION_TITLES} from '../../../core/model/types.js'
import {verb, type VerbName, VERBS} from '../../../core/model/verbs.js'
import type {SessionRow} from '../../../core/store/store.js'
import {oneLine} from '../../../core/model/sanitize.js'
import {fitLine} from '../style.js'
import {type Listing, type RenderStyle, renderRow, titleOf} from '../views.js'

export type Mode =
  | {readonly kind: 'list'}
  | {readonly kind: 'help'}
  | {readonly kind: 'input'; readonly purpose: 'filter' | VerbName; readonly label: string; readonly text: string}
  | {readonly kind: 'confirm'; readonly purpose: VerbName; readonly label: string}

export interface InboxState {
  readonly listing: Listing
  readonly rows: readonly SessionRow[]
  readonly cursor: number
  readonly filter: string
  readonly mode: Mode
  readonly message: string
  readonly now: number
  readonly home: string
}

export interface Style extends RenderStyle {
  readonly inverse: (s: string) => string
}

/** The verbs the key bar names (every verb of the catalog is on the help page). */
const BAR: readonly VerbName[] = ['approve', 'deny', 'reply', 'snooze', 'stash', 'pin', 'done', 'kill', 'undo']

export const KEY_BAR = [
  'j/k move  ⏎ jump',
  ...BAR.map((name) => `${verb(name).key} ${verb(name).label.toLowerCase()}`),
  'n/N next waiting  / filter  ? help  q quit',
].join('  ')

/** The help page: moving about, then every verb of the catalog (src/core/model/verbs.ts) with its key. */
export const HELP = [
  'cast inbox: keys',
  '',
  '  j / k / ↓ / ↑   move the cursor          g / G   first / last',
  "  Enter           jump to the agent's tmux pane (switch-client; attaches when outside tmux)",
  '  n / N           next waiting session in this project / anywhere',
  '  /               filter by title, folder, agent or id (Esc clears)',
  '  ?               this help        q / Ctrl-C   quit',
  '',
  ...VERBS.map((v) => `  ${v.key.padEnd(16)}${v.label}: ${v.summary}${v.takes === 'confirm' ? ' (asks first)' : ''}`),
  '',
  'Each verb runs the cast command of the same name, with its rules. The view follows the',
  'transitions log as it grows: no refresh key is needed. Press any key to go back.',
]

/** Rows whose title, folder, agent or id contain the filter (no case). */
export function filterRows(rows: readonly SessionRow[], filter: string): SessionRow[] {
  const f = filter.trim().toLowerCase()
  if (f === '') return [...rows]
  return rows.filter((r) => [titleOf(r) ?? '', r.facts.cwd ?? '', r.agent, r.id, r.nativeId].some((v) => v.toLowerCase().includes(f)))
}

/** The index of the next waiting session after `from` (wrapping), in the same folder when `here`. */
export function nextWaiting(rows: readonly SessionRow[], from: number, here: boolean): number | null {
  const cwd = rows[from]?.facts.cwd ?? null
  for (let step = 1; step <= rows.length; step++) {
    const i = (from + step) % rows.length
    const r = rows[i]!
    const waiting = r.state === 'needs_input' || r.bucket === 'questions'
    if (waiting && (!here || r.facts.cwd === cwd)) return i
  }

  return null
}

/** The screen, `height` lines of at most `width` cells. */
export function renderInbox(s: InboxState, width: number, height: number, style: Style): string[] {
  const clock = new Date(s.now).toLocaleTimeString('en-US', {hour: '2-digit', hour12: false, minute: '2-digit', second: '2-digit'})
  const head = [
    style.bold(`cast inbox · ${oneLine(s.listing.me)}  ${clock}`) + (s.filter ? `   filter: ${oneLine(s.filter)}` : ''),
    formatTally(s.listing.counts),
  ]
  const foot = [promptLine(s), fitLine(s.mode.kind === 'list' && s.message === '' ? KEY_BAR : s.message || KEY_BAR, width)]
  if (s.mode.kind === 'help')
    return pad(
      [...head, '', ...HELP].map((l) => fitLine(l, width)),
      height,
    )

  const body: string[] = []
  let cursorLine = 0
  let current: Bucket | null = null
  const sizes = new Map<Bucket, number>()
  for (const r of s.rows) sizes.set(r.bucket, (sizes.get(r.bucket) ?? 0) + 1)
  s.rows.forEach((r, i) => {
    if (r.bucket !== current) {
      current = r.bucket
      body.push('', style.bold(`${SECTION_TITLES[r.bucket] ?? r.bucket.toUpperCase()} (${sizes.get(r.bucket)})`))
    }

    const lines = renderRow(r, s.listing.me, s.now, s.home, style)
    const selected = i === s.cursor
    if (selected) cursorLine = body.length
    // The selected row shows every line; the others their first two.
    const shown = selected ? lines : lines.slice(0, 2)
    shown.forEach((l, j) => body.push(j === 0 ? (selected ? style.inverse('› ' + l) : '  ' + l) : '  ' + l))
  })
  if (s.rows.length === 0) body.push('', s.filter ? 'Nothing matches the filter (Esc clears it).' : 'Nothing in your inbox.')

  const room = Math.max(1, height - head.length - foot.length)
  // Keep the cursor's row (and its section title) in view.
  let top = 0
  if (cursorLine + 6 > room) top = Math.min(cursorLine - 2, Math.max(0, body.length - room))
  top = Math.max(0, top)
  const visible = body.slice(top, top + room)
  return pad(
    [...head, ...visible].map((l) => fitLine(l, width)),
    height - foot.length,
  ).concat(foot)
}

function promptLine(s: InboxState): string {
  const m = s.mode
  if (m.kind === 'input') return `${m.label}${m.text}█`
  if (m.kind === 'confirm') return `${m.label} [y/N]`
  return ''
}

function pad(lines: string[], height: number): string[] {
  const out = lines.slice(0, Math.max(0, height))
  while (out.length < height) out.push('')
  return out
}
