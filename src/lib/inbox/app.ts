/**
 * `cast inbox` at run time: the alternate screen, raw keys, the log follower, and the verbs. Every
 * verb runs through the one verb runner (src/lib/verbs/index.ts) in this process, as the person at
 * this terminal, so the inbox keeps exactly the CLI's rules: dialog.ts's checks for approve and
 * deny, deliver.ts's safety rules for a reply, the undo history for every triage action. Keys
 * typed while a verb runs wait their turn, in order.
 */
import {emitKeypressEvents} from 'node:readline'

import type {SessionRow, Store} from '../../core/store/store.js'
import {verb, verbForKey, type Verb, type VerbName} from '../../core/model/verbs.js'
import {castHome, type Env} from '../home/env.js'
import {recordKeystroke} from '../notify/activity.js'
import {oneLine} from '../../core/model/sanitize.js'
import {buildListing, PLAIN, type Listing, titleOf} from '../views/views.js'
import {filterRows, type InboxState, type Mode, nextWaiting, renderInbox, type Style} from '../views/inbox/view.js'

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
  const inbox = new Inbox(o, await makeStyle(o.env))
  return inbox.run()
}

type Purpose = 'filter' | VerbName

/** The inbox's state and its steps: listing, drawing, the verbs, and one handler per kind of key. */
class Inbox {
  private readonly out = process.stdout
  private listing!: Listing
  private all: SessionRow[] = []
  private rows: SessionRow[] = []
  private cursor = 0
  private selectedId: string | null = null
  private filter = ''
  private mode: Mode = {kind: 'list'}
  private message = ''
  /** The keys so far, handled one after another: a key typed while a verb runs waits for it. */
  private keys: Promise<void> = Promise.resolve()
  private suspended = false
  private quitting = false
  private finish!: () => void
  private readonly finished = new Promise<void>((resolve) => {
    this.finish = resolve
  })

  constructor(
    private readonly o: InboxOptions,
    private readonly style: Style,
  ) {}

  private reload(): void {
    const now = this.o.clock()
    const built = buildListing(this.o.store.loadSessions(), this.o.me, now, {recencyMs: this.o.recencyMs})
    this.listing = built.listing
    this.all = built.rows
    this.rows = filterRows(this.all, this.filter)
    const keep = this.selectedId === null ? -1 : this.rows.findIndex((r) => r.id === this.selectedId)
    this.cursor = keep >= 0 ? keep : Math.min(this.cursor, Math.max(0, this.rows.length - 1))
    this.selectedId = this.rows[this.cursor]?.id ?? null
  }

  private readonly render = (): void => {
    if (this.suspended) return
    const width = this.out.columns || 80
    const height = this.out.rows || 24
    const {cursor, filter, listing, message, mode, rows} = this
    const state: InboxState = {cursor, filter, home: this.o.home, listing, message, mode, now: this.o.clock(), rows}
    const lines = renderInbox(state, width, height, this.style)
    this.out.write('\u001B[H' + lines.map((l) => l + '\u001B[K').join('\r\n') + '\u001B[J')
  }

  private readonly refresh = (): void => {
    this.reload()
    this.render()
  }

  private enter(): void {
    this.out.write('\u001B[?1049h\u001B[?25l')
    if (process.stdin.isTTY) process.stdin.setRawMode(true)
    process.stdin.resume()
  }

  private leave(): void {
    if (process.stdin.isTTY) process.stdin.setRawMode(false)
    this.out.write('\u001B[?25h\u001B[?1049l')
  }

  private say(m: string): void {
    this.message = oneLine(m)
    this.render()
  }

  /**
   * Run a verb of the catalog on `session` through the runner; its first line (or its refusal)
   * becomes the message. A verb that files the card away (the catalog's filesAway: snooze, stash,
   * mark done, dormant, kill) leaves the cursor where it was, on the row that takes its place, as
   * a mail client does, so the same key clears a section row by row.
   */
  private async runVerb(v: Verb, session: string, value?: string): Promise<boolean> {
    const away = v.filesAway === true
    const next = away ? (this.rows[this.cursor + 1]?.id ?? this.rows[this.cursor - 1]?.id ?? null) : undefined
    const doing = doingWord(v)
    this.say(`${doing}…`)
    const o = this.o
    try {
      const {catalogCall, runVerbData} = await import('../verbs/index.js')
      const call = catalogCall(v.name, {session, value})
      const r = await runVerbData({clock: o.clock, env: o.env, me: o.me, store: o.store, team: true}, call.name, call.input)
      const ok = r.ok && r.exit === 0
      if (ok && next !== undefined) this.selectedId = next
      this.reload()
      const text = r.ok ? (r.exit === 0 ? r.lines[0] : (r.warnings[0] ?? r.lines[0])) : r.line
      this.say(`${ok ? 'ok' : `refused (exit ${r.exit})`}: ${text || `${doing}: done`}`)
      return ok
    } catch (error) {
      this.reload()
      this.say(`${doing} failed: ${error instanceof Error ? error.message : String(error)}`)
      return false
    }
  }

  private selected(): SessionRow | null {
    return this.rows[this.cursor] ?? null
  }

  private move(to: number): void {
    if (this.rows.length === 0) return
    this.cursor = Math.max(0, Math.min(this.rows.length - 1, to))
    this.selectedId = this.rows[this.cursor]!.id
    this.message = ''
    this.render()
  }

  private async jump(row: SessionRow): Promise<void> {
    const o = this.o
    const {checkClaims, findPane, paneName} = await import('../agents/dialog.js')
    const found = await findPane(o.store, row, o.env, checkClaims(o.store, row))
    if (!found.pane) return this.say(`cannot jump: ${found.why}`)
    const {execa} = await import('execa')
    const pane = found.pane
    const base = pane.socket ? ['-S', pane.socket] : []
    const tmux = (args: string[]) =>
      execa('tmux', [...base, ...args], {env: o.env as Record<string, string>, extendEnv: false, reject: false, timeout: 10_000})
    await tmux(['select-window', '-t', pane.id])
    await tmux(['select-pane', '-t', pane.id])
    const ours = o.env.TMUX?.split(',')[0]
    if (ours && (pane.socket === undefined || pane.socket === ours)) {
      const r = await tmux(['switch-client', '-t', pane.id])
      // No client to switch (a detached server): the window and pane are selected all the same.
      return this.say(r.exitCode === 0 || /no current client/.test(r.stderr) ? `jumped to ${paneName(pane)}` : `tmux: ${r.stderr.trim()}`)
    }

    if (ours) return this.say(`${paneName(pane)} is on another tmux server: tmux -S ${pane.socket} attach -t ${pane.id}`)
    // Outside tmux (a plain SSH login): attach until the person detaches, then come back.
    this.suspended = true
    this.leave()
    const {spawnSync} = await import('node:child_process')
    spawnSync('tmux', [...base, 'attach-session', '-t', pane.id], {env: o.env, stdio: 'inherit'})
    this.suspended = false
    this.enter()
    this.refresh()
  }

  private startInput(purpose: Purpose, label: string, text = ''): void {
    this.mode = {kind: 'input', label, purpose, text}
    this.render()
  }

  private async submit(purpose: Purpose, text: string): Promise<void> {
    this.mode = {kind: 'list'}
    const row = this.selected()
    if (purpose === 'filter') {
      this.filter = text
      this.reload()
      this.message = ''
      return this.render()
    }

    if (!row || text.trim() === '') return this.render()
    await this.runVerb(verb(purpose), row.id, text)
  }

  private readonly quit = (): void => {
    if (this.quitting) return
    this.quitting = true
    this.finish()
  }

  /** A key as typed: Ctrl+C quits at once; every other key waits for the ones before it (a running verb). */
  private typed(str: string | undefined, key: Key): void {
    if (key.ctrl && key.name === 'c') return this.quit()
    this.keys = this.keys.then(() => this.onKey(str, key)).catch((error: Error) => this.say(`error: ${error.message}`))
  }

  async onKey(str: string | undefined, key: Key = {}): Promise<void> {
    if (key.ctrl && key.name === 'c') return this.quit()
    if (this.quitting) return
    const m = this.mode
    if (m.kind === 'help') {
      this.mode = {kind: 'list'}
      return this.render()
    }

    if (m.kind === 'input') return this.inputKey(m, str, key)
    const row = this.selected()
    if (m.kind === 'confirm') {
      this.mode = {kind: 'list'}
      const v = verb(m.purpose)
      if (str === 'y' || str === 'Y') {
        if (row) await this.runVerb(v, row.id)
      } else this.say(`${v.label.toLowerCase()} cancelled`)
      return this.render()
    }

    const k = key.name === 'return' || key.name === 'enter' ? 'enter' : key.name === 'down' ? 'j' : key.name === 'up' ? 'k' : str
    if (await this.listKey(k, str)) return
    if (row) await this.rowKey(k, row)
  }

  /** A key while typing a filter, a reply or a snooze time. */
  private async inputKey(m: Extract<Mode, {kind: 'input'}>, str: string | undefined, key: Key): Promise<void> {
    if (key.name === 'escape') {
      this.mode = {kind: 'list'}
      if (m.purpose === 'filter') {
        this.filter = ''
        this.reload()
      }

      return this.render()
    }

    if (key.name === 'return' || key.name === 'enter') return this.submit(m.purpose, m.text)
    if (key.name === 'backspace') this.mode = {...m, text: [...m.text].slice(0, -1).join('')}
    else if (key.ctrl && key.name === 'u') this.mode = {...m, text: ''}
    else if (str && !key.ctrl && !key.meta && str >= ' ' && !str.startsWith('\u001B')) this.mode = {...m, text: m.text + str}
    if (m.purpose === 'filter' && this.mode.kind === 'input') {
      this.filter = this.mode.text
      this.reload()
    }

    return this.render()
  }

  /** A key that needs no selected row (moving, help, filter, undo, quit); false when `k` is not one. */
  private async listKey(k: string | undefined, str: string | undefined): Promise<boolean> {
    switch (k) {
      case 'q':
        this.quit()
        return true
      case 'j':
        this.move(this.cursor + 1)
        return true
      case 'k':
        this.move(this.cursor - 1)
        return true
      case 'g':
        this.move(0)
        return true
      case 'G':
        this.move(this.rows.length - 1)
        return true
      case 'n':
      case 'N': {
        const i = nextWaiting(this.rows, this.cursor, str === 'n')
        if (i === null) this.say(str === 'n' ? 'nothing else waits in this project' : 'nothing else waits')
        else this.move(i)
        return true
      }

      case '?':
        this.mode = {kind: 'help'}
        this.render()
        return true
      case '/':
        this.startInput('filter', 'filter: ', this.filter)
        return true
      case verb('undo').key:
        await this.runVerb(verb('undo'), '')
        return true
      default:
        return false
    }
  }

  /** A verb of the catalog (src/core/model/verbs.ts) on the selected row; Enter jumps to its pane. */
  private async rowKey(k: string | undefined, row: SessionRow): Promise<void> {
    if (k === 'enter') return this.jump(row)
    const found = k === undefined ? undefined : verbForKey(k)
    if (!found || found.global) return
    if (found.forReason !== undefined && row.reason !== found.forReason) {
      this.say(`${found.label.toLowerCase()}: only for a session that reads ${found.forReason} (this one reads ${row.state}:${row.reason})`)
      return
    }

    // p toggles: on a pinned row it unpins.
    const v = found.name === 'pin' && row.records.pinned ? verb('unpin') : found
    const title = oneLine(titleOf(row) ?? '(untitled)')
    if (v.takes === 'confirm') {
      this.mode = {kind: 'confirm', label: `${v.label.toLowerCase()} ${title}? ${v.confirm ?? ''}`.trimEnd(), purpose: v.name}
      return this.render()
    }

    if (v.takes !== 'none') return this.startInput(v.name, (v.prompt ?? `${v.label.toLowerCase()} {title}: `).replace('{title}', title))
    await this.runVerb(v, row.id)
  }

  async run(): Promise<void> {
    const o = this.o
    this.reload()
    // Keys first: nothing typed while the follower starts is lost.
    emitKeypressEvents(process.stdin)
    process.stdin.on('keypress', (str: string | undefined, key: Key) => {
      // Paging holds the phone while you type here (src/lib/notify/activity.ts).
      recordKeystroke(castHome(o.env), 'inbox', Date.now())
      this.typed(str, key)
    })
    this.enter()
    this.render()
    const {followLog} = await import('../ingest/follow.js')
    const follower = await followLog({clock: o.clock, env: o.env, ingest: true, me: o.me, onWake: this.refresh, store: o.store})
    this.refresh()
    // The clock in the header, ages and the quiet band move with time: redraw once a minute.
    const minute = setInterval(() => this.render(), 60_000)
    this.out.on('resize', this.render)
    process.once('SIGTERM', this.quit)
    process.once('SIGHUP', this.quit)
    await this.finished
    clearInterval(minute)
    this.out.off('resize', this.render)
    this.leave()
    process.stdin.pause()
    await follower.stop()
  }
}

/** "approving", "stashing", "marking done": what the message line says while a verb runs. */
function doingWord(v: Verb): string {
  const word = v.argv('x')[0] ?? v.name
  const stem = word.endsWith('e') ? word.slice(0, -1) : word.endsWith('pin') ? word + 'n' : word
  return `${stem}ing${word === 'mark' ? ' ' + v.argv('x')[1] : ''}`
}
