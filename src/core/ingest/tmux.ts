/**
 * The tmux client the screen sweep uses: which servers the user runs (every socket in
 * `$TMUX_TMPDIR/tmux-<uid>/`, and $TMUX's), the pane list, and every agent pane's screen in one
 * invocation. Each call is one `tmux -S <socket>` process with a UTF-8 locale and a 5 s timeout.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface TmuxServer {
  readonly bin: string
  readonly socket: string
}

const binCache = new Map<string, string | null>()

/** The tmux binary on PATH, or null. */
export function tmuxBinary(env: Readonly<Record<string, string | undefined>>): string | null {
  const key = env.PATH ?? ''
  if (binCache.has(key)) return binCache.get(key)!
  let found: string | null = null
  for (const dir of key.split(path.delimiter)) {
    if (!dir) continue
    const p = path.join(dir, 'tmux')
    try {
      fs.accessSync(p, fs.constants.X_OK)
      found = p
      break
    } catch {
      // not here
    }
  }

  binCache.set(key, found)
  return found
}

/** The server tmux itself would talk to: $TMUX's socket inside tmux, else the default one. */
export function tmuxSocket(env: Readonly<Record<string, string | undefined>>): string {
  const inside = env.TMUX?.split(',')[0]
  if (inside) return inside
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0
  return path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, 'default')
}

/**
 * Every tmux server the user may run: the one $TMUX names (inside tmux), and every socket the
 * user owns in the tmux socket folder (`$TMUX_TMPDIR/tmux-<uid>/`, `/tmp` by default), so panes
 * on `tmux -L work` or a private test server are read like the default one. No process started.
 */
/**
 * The environment to run a tmux client in: `env` without unset keys, with a UTF-8 locale.
 * Without one the client prints every non-ASCII character (❯, ⠹, …) and every tab as '_': the
 * screens would not match the agents' patterns and the pane list would not split.
 */
export function tmuxEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const clean: Record<string, string> = {}
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v
  if (!/utf-?8/i.test(clean.LC_ALL || clean.LC_CTYPE || clean.LANG || '')) clean.LC_ALL = 'C.UTF-8'
  return clean
}

export function tmuxServers(env: Readonly<Record<string, string | undefined>>): {
  servers: TmuxServer[]
  why: 'missing' | 'no_server' | null
} {
  const bin = tmuxBinary(env)
  if (bin === null) return {servers: [], why: 'missing'}
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0
  const sockets = new Set<string>()
  const isMine = (p: string): boolean => {
    try {
      const st = fs.lstatSync(p)
      return st.isSocket() && st.uid === uid
    } catch {
      return false
    }
  }

  const inside = env.TMUX?.split(',')[0]
  if (inside && isMine(inside)) sockets.add(inside)
  const dir = path.join(env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`)
  let names: string[] = []
  try {
    names = fs.readdirSync(dir).sort()
  } catch {
    names = []
  }

  for (const name of names) {
    const p = path.join(dir, name)
    if (isMine(p)) sockets.add(p)
  }

  if (sockets.size === 0) return {servers: [], why: 'no_server'}
  return {servers: [...sockets].map((socket) => ({bin, socket})), why: null}
}

/** tmux and a server socket, checked without starting a process; null when either is missing. */
export function tmuxServer(env: Readonly<Record<string, string | undefined>>): {
  server: TmuxServer | null
  why: 'missing' | 'no_server' | null
} {
  const bin = tmuxBinary(env)
  if (bin === null) return {server: null, why: 'missing'}
  const socket = tmuxSocket(env)
  try {
    if (!fs.statSync(socket).isSocket()) return {server: null, why: 'no_server'}
  } catch {
    return {server: null, why: 'no_server'}
  }

  return {server: {bin, socket}, why: null}
}

function runTmux(
  server: TmuxServer,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): {ok: boolean; stdout: string; stderr: string} {
  const clean = tmuxEnv(env)
  const r = spawnSync(server.bin, ['-S', server.socket, ...args], {
    encoding: 'utf8',
    env: clean,
    maxBuffer: 32 * 1024 * 1024,
    timeout: 5000,
  })
  return {ok: r.status === 0 && !r.error, stderr: r.stderr ?? String(r.error ?? ''), stdout: r.stdout ?? ''}
}

export interface PaneInfo {
  readonly id: string
  readonly pid: number
  readonly dead: boolean
  readonly address: string
}

/** `tmux list-panes -a` over every session of one server. */
export function listPanes(
  server: TmuxServer,
  env: Readonly<Record<string, string | undefined>>,
): {ok: boolean; stdout: string; stderr: string} {
  return runTmux(server, ['list-panes', '-a', '-F', LIST_FORMAT], env)
}

// Space-separated (a session name, which may hold spaces, comes last): tmux may print a tab as '_'.
const LIST_FORMAT = '#{pane_id} #{pane_pid} #{pane_dead} #{session_name}:#{window_index}.#{pane_index}'

export function parsePaneList(out: string): PaneInfo[] {
  const panes: PaneInfo[] = []
  for (const line of out.split('\n')) {
    const [id, pid, dead, ...rest] = line.split(/[\t ]/)
    if (!id || !pid || !/^%\d+$/.test(id)) continue
    panes.push({address: rest.join(' '), dead: dead === '1', id, pid: Number(pid)})
  }

  return panes
}

/**
 * The visible screen of every pane in `ids`, in one tmux invocation: `display-message -p` prints
 * a marker line naming the pane, `capture-pane -p -J` its screen. tmux stops a command sequence
 * at the first failing command (a pane closed since the listing): the panes after it are
 * captured in one more invocation, without the one that failed.
 */
export function capturePanes(
  server: TmuxServer,
  ids: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): {screens: Map<string, string>; calls: number} {
  const screens = new Map<string, string>()
  let todo = [...ids]
  let calls = 0
  const nonce = `${process.pid}-${Date.now().toString(36)}`
  const marker = `\u001ecast-screen ${nonce} `
  while (todo.length > 0 && calls < 2) {
    const args: string[] = []
    for (const id of todo) {
      if (args.length > 0) args.push(';')
      // The marker names the pane without its '%' (display-message expands strftime sequences).
      args.push('display-message', '-p', '-t', id, `${marker}${id.slice(1)}`, ';', 'capture-pane', '-p', '-J', '-t', id)
    }

    calls++
    const r = runTmux(server, args, env)
    let current: string | null = null
    let buf: string[] = []
    const flush = (): void => {
      if (current !== null) screens.set(current, buf.join('\n'))
    }

    for (const line of r.stdout.split('\n')) {
      if (line.startsWith(marker)) {
        flush()
        current = `%${line.slice(marker.length).trim()}`
        buf = []
      } else if (current !== null) {
        buf.push(line)
      }
    }

    if (r.ok) {
      flush()
      break
    }

    // The sequence stopped at the pane tmux names: a pane captured before it is complete.
    const failed = /(%\d+)/.exec(r.stderr)?.[1]
    if (current !== null && current !== failed) flush()
    if (failed === undefined) break
    todo = todo.filter((id) => !screens.has(id) && id !== failed)
  }

  return {calls, screens}
}
