/**
 * `cast inbox` at run time: the alternate screen, raw keys, the log follower, and the verbs. Every
 * verb runs cast's own command as a child process (cast approve, deny, send, snooze, stash, pin,
 * mark, kill, undo), so the inbox keeps exactly their rules: dialog.ts's checks for approve and
 * deny, deliver.ts's safety rules for a reply, the undo history for every triage action.
 */
import {emitKeypressEvents} from 'node:readline'

import type {SessionRow, Store} from '../../core/store/store.js'
import {parseDuration} from '../../core/model/durations.js'
import type {Env} from '../env.js'
import {oneLine} from '../sanitize.js'
import {buildListing, PLAIN, type Listing, titleOf} from '../views.js'
import {filterRows, type InboxState, type Mode, nextWaiting, renderInbox, type Style} from './view.js'

interface Key {
  readonly name?: string
  readonly sequence?: string
  readonly ctrl?: boolean
  readonly shift?: boolean
  readonly meta?: boolean
}

export interface InboxOptions {
  readonly store: Store
  readonly env: Env
  readonly clock: () => number
  readonly me: string
  readonly home: string
  readonly recencyMs?: number
  /** argv that runs cast itself: [node, bin/run.js]. */
  readonly self: readonly string[]
}

async function makeStyle(env: Env): Promise<Style> {
  if (!process.stdout.isTTY || env.NO_COLOR !== undefined) return {...PLAIN, inverse: (s) => s}
  const {default: chalk} = await import('chalk')
  const colours = {dormant: chalk.blue, done: chalk.green, idle: chalk.gray, needs_input: chalk.yellow, working: chalk.cyan}
  return {bold: chalk.bold, dim: chalk.dim, inverse: chalk.inverse, state: (st, s) => colours[st](s)}
}

export async function runInbox(o: InboxOptions): Promise<void> {
  const out = process.stdout
  const style = await makeStyle(o.env)
  let listing: Listing
  let all: SessionRow[] = []
  let rows: SessionRow[] = []
  let cursor = 0
  let selectedId: string | null = null
  let filter = ''
  let mode: Mode = {kind: 'list'}
  let message = ''
  let busy = false
  let doingNow = ''
  let suspended = false

  const reload = (): void => {
    const now = o.clock()
    const built = buildListing(o.store.loadSessions(), o.me, now, {recencyMs: o.recencyMs})
    listing = built.listing
    all = built.rows
    rows = filterRows(all, filter)
    const keep = selectedId === null ? -1 : rows.findIndex((r) => r.id === selectedId)
    cursor = keep >= 0 ? keep : Math.min(cursor, Math.max(0, rows.length - 1))
    selectedId = rows[cursor]?.id ?? null
  }

  const render = (): void => {
    if (suspended) return
    const width = out.columns || 80
    const height = out.rows || 24
    const state: InboxState = {cursor, filter, home: o.home, listing, message, mode, now: o.clock(), rows}
    const lines = renderInbox(state, width, height, style)
    out.write('\u001B[H' + lines.map((l) => l + '\u001B[K').join('\r\n') + '\u001B[J')
  }

  const refresh = (): void => {
    reload()
    render()
  }

  const enter = (): void => {
    out.write('\u001B[?1049h\u001B[?25l')
    if (process.stdin.isTTY) process.stdin.setRawMode(true)
    process.stdin.resume()
  }

  const leave = (): void => {
    if (process.stdin.isTTY) process.stdin.setRawMode(false)
    out.write('\u001B[?25h\u001B[?1049l')
  }

  const say = (m: string): void => {
    message = oneLine(m)
    render()
  }

  /** Run cast itself with these arguments; the first line of what it said becomes the message. */
  const cast = async (args: readonly string[], doing: string): Promise<boolean> => {
    if (busy) return false
    busy = true
    doingNow = doing
    say(`${doing}…`)
    try {
      const {execa} = await import('execa')
      const r = await execa(o.self[0]!, [...o.self.slice(1), ...args], {env: {...(o.env as Record<string, string>), NO_COLOR: '1'}, extendEnv: false, reject: false, stdin: 'ignore', timeout: 120_000})
      const first = (t: string): string => t.split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('›')) ?? ''
      const text = r.exitCode === 0 ? first(r.stdout) || `${doing}: done` : first(r.stderr.replace(/^\s*(Error|›)\s*:?\s*/gm, '')) || first(r.stdout) || `${doing} failed (exit ${r.exitCode})`
      busy = false
      reload()
      say(`${r.exitCode === 0 ? 'ok' : `refused (exit ${r.exitCode})`}: ${text}`)
      return r.exitCode === 0
    } catch (error) {
      busy = false
      say(`${doing} failed: ${(error as Error).message}`)
      return false
    }
  }

  const selected = (): SessionRow | null => rows[cursor] ?? null
  const move = (to: number): void => {
    if (rows.length === 0) return
    cursor = Math.max(0, Math.min(rows.length - 1, to))
    selectedId = rows[cursor]!.id
    message = ''
    render()
  }

  const jump = async (row: SessionRow): Promise<void> => {
    const {checkClaims, findPane, paneName} = await import('../dialog.js')
    const found = await findPane(o.store, row, o.env, checkClaims(o.store, row))
    if (!found.pane) return say(`cannot jump: ${found.why}`)
    const {execa} = await import('execa')
    const pane = found.pane
    const base = pane.socket ? ['-S', pane.socket] : []
    const tmux = (args: string[]) => execa('tmux', [...base, ...args], {env: o.env as Record<string, string>, extendEnv: false, reject: false, timeout: 10_000})
    await tmux(['select-window', '-t', pane.id])
    await tmux(['select-pane', '-t', pane.id])
    const ours = o.env.TMUX?.split(',')[0]
    if (ours && (pane.socket === undefined || pane.socket === ours)) {
      const r = await tmux(['switch-client', '-t', pane.id])
      // No client to switch (a detached server): the window and pane are selected all the same.
      return say(r.exitCode === 0 || /no current client/.test(r.stderr) ? `jumped to ${paneName(pane)}` : `tmux: ${r.stderr.trim()}`)
    }

    if (ours) return say(`${paneName(pane)} is on another tmux server: tmux -S ${pane.socket} attach -t ${pane.id}`)
    // Outside tmux (a plain SSH login): attach until the person detaches, then come back.
    suspended = true
    leave()
    const {spawnSync} = await import('node:child_process')
    spawnSync('tmux', [...base, 'attach-session', '-t', pane.id], {env: o.env as NodeJS.ProcessEnv, stdio: 'inherit'})
    suspended = false
    enter()
    refresh()
  }

  const startInput = (purpose: 'filter' | 'reply' | 'snooze', label: string, text = ''): void => {
    mode = {kind: 'input', label, purpose, text}
    render()
  }

  const submit = async (purpose: 'filter' | 'reply' | 'snooze', text: string): Promise<void> => {
    mode = {kind: 'list'}
    const row = selected()
    if (purpose === 'filter') {
      filter = text
      reload()
      message = ''
      return render()
    }

    if (!row || text.trim() === '') return render()
    if (purpose === 'reply') {
      await cast(['send', row.id, '--', text], 'sending')
      return
    }

    const when = text.trim()
    await cast(['snooze', row.id, parseDuration(when) === null ? '--until' : '--for', when], 'snoozing')
  }

  const onKey = async (str: string | undefined, key: Key = {}): Promise<void> => {
    if (key.ctrl && key.name === 'c') return quit()
    // One verb at a time: say so rather than drop the key silently.
    if (busy) return say(`${doingNow}… (wait for it to finish; key ignored)`)
    const m = mode
    if (m.kind === 'help') {
      mode = {kind: 'list'}
      return render()
    }

    if (m.kind === 'input') {
      if (key.name === 'escape') {
        mode = {kind: 'list'}
        if (m.purpose === 'filter') {
          filter = ''
          reload()
        }

        return render()
      }

      if (key.name === 'return' || key.name === 'enter') return submit(m.purpose, m.text)
      if (key.name === 'backspace') mode = {...m, text: [...m.text].slice(0, -1).join('')}
      else if (key.ctrl && key.name === 'u') mode = {...m, text: ''}
      else if (str && !key.ctrl && !key.meta && str >= ' ' && !str.startsWith('\u001B')) mode = {...m, text: m.text + str}
      if (m.purpose === 'filter' && mode.kind === 'input') {
        filter = mode.text
        reload()
      }

      return render()
    }

    const row = selected()
    if (m.kind === 'confirm') {
      mode = {kind: 'list'}
      if (str === 'y' || str === 'Y') {
        if (row) await cast(['kill', row.id], 'killing')
      } else say('kill cancelled')
      return render()
    }

    if (m.kind === 'choose') {
      mode = {kind: 'list'}
      const as = {d: 'done', n: 'needs-input', o: 'dormant', u: 'unread'}[str ?? '']
      if (as && row) await cast(['mark', as, row.id], `marking ${as}`)
      else render()
      return
    }

    const k = key.name === 'return' || key.name === 'enter' ? 'enter' : key.name === 'down' ? 'j' : key.name === 'up' ? 'k' : str
    switch (k) {
      case 'q':
        return quit()
      case 'j':
        return move(cursor + 1)
      case 'k':
        return move(cursor - 1)
      case 'g':
        return move(0)
      case 'G':
        return move(rows.length - 1)
      case 'n':
      case 'N': {
        const i = nextWaiting(rows, cursor, str === 'n')
        if (i === null) return say(str === 'n' ? 'nothing else waits in this project' : 'nothing else waits')
        return move(i)
      }

      case '?':
        mode = {kind: 'help'}
        return render()
      case '/':
        return startInput('filter', 'filter: ', filter)
      case 'u':
        return void (await cast(['undo'], 'undoing'))
      default:
        break
    }

    if (!row) return
    const title = oneLine(titleOf(row) ?? '(untitled)')
    switch (k) {
      case 'enter':
        return jump(row)
      case 'a':
        return void (await cast(['approve', row.id], 'approving'))
      case 'd':
        return void (await cast(['deny', row.id], 'denying'))
      case 'r':
        return startInput('reply', `reply to ${title}: `)
      case 's':
        return startInput('snooze', `snooze ${title} for (30m, 2h) or until (tomorrow 9am): `)
      case 'x':
        return void (await cast(['stash', row.id], 'stashing'))
      case 'p':
        return void (await cast([row.records.pinned ? 'unpin' : 'pin', row.id], row.records.pinned ? 'unpinning' : 'pinning'))
      case 'm':
        mode = {kind: 'choose', label: `mark ${title} as: d done · o dormant · n needs input · u unread (other key cancels)`, purpose: 'mark'}
        return render()
      case 'K':
        mode = {kind: 'confirm', label: `kill ${title}? It stops the agent process.`, purpose: 'kill'}
        return render()
      default:
        break
    }
  }

  let finish!: () => void
  const finished = new Promise<void>((resolve) => {
    finish = resolve
  })
  let quitting = false
  const quit = (): void => {
    if (quitting) return
    quitting = true
    finish()
  }

  reload()
  // Keys first: nothing typed while the follower starts is lost.
  emitKeypressEvents(process.stdin)
  process.stdin.on('keypress', (str: string | undefined, key: Key) => {
    void onKey(str, key).catch((error: Error) => say(`error: ${error.message}`))
  })
  enter()
  render()
  const {followLog} = await import('../notify/follow.js')
  const follower = await followLog({clock: o.clock, env: o.env, ingest: true, me: o.me, onWake: refresh, store: o.store})
  refresh()
  // The clock in the header, ages and the quiet band move with time: redraw once a minute.
  const minute = setInterval(() => render(), 60_000)
  out.on('resize', render)
  process.once('SIGTERM', quit)
  process.once('SIGHUP', quit)
  await finished
  clearInterval(minute)
  out.off('resize', render)
  leave()
  process.stdin.pause()
  await follower.stop()
}
