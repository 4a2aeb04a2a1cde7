/**
 * A private tmux server for one conformance file: its socket lives under a TMUX_TMPDIR of the
 * test's own (`$TMUX_TMPDIR/tmux-<uid>/<name>`), which is where cast's screen sweep looks for
 * every server the user owns, so cast sees these panes the way it sees a user's.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface AgentPane {
  readonly id: string
  readonly pid: number
}

const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

export class Tmux {
  readonly socket: string
  private constructor(
    readonly tmpdir: string,
    readonly name: string,
  ) {
    this.socket = path.join(tmpdir, `tmux-${process.getuid?.() ?? 0}`, name)
  }

  /** Start a server named `name` under `tmpdir` (a folder of the test's own). */
  static start(tmpdir: string, name: string): Tmux {
    fs.mkdirSync(tmpdir, {recursive: true, mode: 0o700})
    const t = new Tmux(tmpdir, name)
    t.run(['-f', '/dev/null', 'new-session', '-d', '-s', 'keep', '-x', '200', '-y', '50', 'sleep 100000'])
    t.run(['set-option', '-g', 'remain-on-exit', 'off'])
    t.run(['set-option', '-g', 'history-limit', '5000'])
    return t
  }

  /** The environment a cast command needs to find this server the way it finds a user's. */
  get env(): Record<string, string> {
    return {TMUX_TMPDIR: this.tmpdir}
  }

  run(args: readonly string[]): string {
    const r = spawnSync('tmux', ['-L', this.name, ...args], {
      encoding: 'utf8',
      env: {...process.env, TMUX: '', TMUX_TMPDIR: this.tmpdir},
      timeout: 10_000,
    })
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr || r.error?.message}`)
    return r.stdout
  }

  /**
   * A new window running `argv` with exactly `env` (plus TERM), in `cwd`. The pane's process is
   * the agent itself (`env` execs it), so the pane pid is the agent's pid.
   */
  open(
    argv: readonly string[],
    opts: {cwd: string; env: Record<string, string>; name?: string; width?: number; height?: number},
  ): AgentPane {
    const vars = Object.entries({LANG: 'C.UTF-8', TERM: 'xterm-256color', ...opts.env}).map(([k, v]) => q(`${k}=${v}`))
    const cmd = `exec env -i ${vars.join(' ')} ${argv.map(q).join(' ')}`
    const out = this.run(['new-window', '-d', '-P', '-F', '#{pane_id} #{pane_pid}', '-c', opts.cwd, '-n', opts.name ?? 'agent', cmd]).trim()
    const [id, pid] = out.split(' ')
    if (opts.width || opts.height) this.run(['resize-window', '-t', id!, '-x', String(opts.width ?? 200), '-y', String(opts.height ?? 50)])
    return {id: id!, pid: Number(pid)}
  }

  capture(pane: AgentPane | string): string {
    const id = typeof pane === 'string' ? pane : pane.id
    try {
      return this.run(['capture-pane', '-p', '-J', '-t', id])
    } catch {
      return ''
    }
  }

  /** Type text literally (no key names), then optionally Enter as its own key press. */
  type(pane: AgentPane, text: string, enter = true): void {
    this.run(['send-keys', '-t', pane.id, '-l', text])
    if (enter) {
      sleepSync(150)
      this.run(['send-keys', '-t', pane.id, 'Enter'])
    }
  }

  keys(pane: AgentPane, ...keys: string[]): void {
    this.run(['send-keys', '-t', pane.id, ...keys])
  }

  alive(pane: AgentPane): boolean {
    try {
      return this.run(['list-panes', '-a', '-F', '#{pane_id}']).split('\n').includes(pane.id)
    } catch {
      return false
    }
  }

  /** Wait until the screen matches; returns the screen. Throws with the last screen on timeout. */
  async waitFor(pane: AgentPane, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
    const end = Date.now() + timeoutMs
    let screen = ''
    while (Date.now() < end) {
      screen = this.capture(pane)
      if (pattern.test(screen)) return screen
      await new Promise((r) => setTimeout(r, 250))
    }
    throw new Error(`screen never matched ${pattern} within ${timeoutMs} ms; last screen:\n${screen}`)
  }

  killWindow(pane: AgentPane): void {
    try {
      this.run(['kill-window', '-t', pane.id])
    } catch {
      /* already gone */
    }
  }

  stop(): void {
    try {
      this.run(['kill-server'])
    } catch {
      /* already gone */
    }
    fs.rmSync(this.socket, {force: true})
  }
}

export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

/** Every descendant of pid (children first found through /proc), for kill -9 of an agent tree. */
export function descendants(pid: number): number[] {
  const out: number[] = []
  try {
    const ps = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], {encoding: 'utf8'})
    const kids = new Map<number, number[]>()
    for (const line of ps.split('\n')) {
      const [c, p] = line.trim().split(/\s+/).map(Number)
      if (!c || p === undefined) continue
      if (!kids.has(p)) kids.set(p, [])
      kids.get(p)!.push(c)
    }
    const walk = (p: number): void => {
      for (const c of kids.get(p) ?? []) {
        out.push(c)
        walk(c)
      }
    }
    walk(pid)
  } catch {
    /* ps missing */
  }
  return out
}
