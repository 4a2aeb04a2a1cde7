/**
 * The tmux side of `cast send`, `approve`, `deny` and `spawn`. Every call goes through execa with
 * an argument array, never a shell. `spawn` opens windows on the server tmux itself would pick
 * ($TMUX inside tmux, else the default socket); finding a session's pane looks at every server
 * the user owns: $TMUX's, and each socket under `$TMUX_TMPDIR/tmux-<uid>/` (or /tmp), so a
 * pane carries the socket of its server (pane ids are unique per server only).
 */

import {tmuxEnv, tmuxServers} from '../../core/ingest/tmux.js'
import {CastError} from '../base/cast-error.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'

export interface Pane {
  /** The first process in the pane (a shell, or the agent itself). */
  readonly pid: number
  /** `%3`: unique for the server's life, the safest target. */
  readonly id: string
  /** `session:window.pane`, for people. */
  readonly address: string
  /** In copy mode or another mode: keys would go to the mode, not the program. */
  readonly inMode: boolean
  readonly dead: boolean
  /** The server's socket; undefined: the server tmux picks from the environment. */
  readonly socket?: string
}

export class TmuxError extends Error {
  override name = 'TmuxError'
}

/** Run tmux (on `socket` when given); returns stdout. */
async function tmux(args: readonly string[], env: Env, input?: string, socket?: string): Promise<string> {
  const {execa} = await import('execa')
  try {
    const r = await execa('tmux', socket ? ['-S', socket, ...args] : args, {
      env: tmuxEnv(env),
      extendEnv: false,
      input,
      stripFinalNewline: true,
      timeout: 10_000,
    })
    return r.stdout
  } catch (error) {
    const e = error as {stderr?: string; shortMessage?: string; code?: string}
    if (e.code === 'ENOENT') throw new TmuxError('tmux is not installed')
    throw new TmuxError((e.stderr || e.shortMessage || String(error)).trim())
  }
}

/**
 * The sockets of every tmux server the user owns: $TMUX's, then each socket (owned by us, not a
 * symlink) in `$TMUX_TMPDIR/tmux-<uid>/`, else `/tmp/tmux-<uid>/`.
 */
export function tmuxSockets(env: Env): string[] {
  return tmuxServers(env).servers.map((s) => s.socket)
}

const LIST_FORMAT = '#{pane_pid} #{pane_id} #{pane_in_mode} #{pane_dead} #{session_name}:#{window_index}.#{pane_index}'

function parsePanes(out: string, socket?: string): Pane[] {
  const panes: Pane[] = []
  for (const line of out.split('\n')) {
    const m = /^(\d+) (%\d+) (\d) (\d) (.*)$/.exec(line)
    if (!m) continue
    panes.push({address: m[5]!, dead: m[4] === '1', id: m[2]!, inMode: m[3] === '1', pid: Number(m[1]), ...(socket ? {socket} : {})})
  }

  return panes
}

/** Every pane of the server tmux picks from the environment; empty when tmux is missing or no server runs. */
export async function listPanes(env: Env): Promise<Pane[]> {
  try {
    // Spaces, not tabs: without a UTF-8 locale tmux prints control characters as "_". The
    // address (session names may hold spaces) comes last.
    return parsePanes(await tmux(['list-panes', '-a', '-F', LIST_FORMAT], env))
  } catch {
    return []
  }
}

/** Every pane of every server the user owns (tmuxSockets), each with its socket. */
export async function listAllPanes(env: Env): Promise<Pane[]> {
  const lists = await Promise.all(
    tmuxSockets(env).map(async (socket) => {
      try {
        return parsePanes(await tmux(['list-panes', '-a', '-F', LIST_FORMAT], env, undefined, socket), socket)
      } catch {
        return []
      }
    }),
  )
  return lists.flat()
}

/** The visible screen of a pane (lines joined), or null when the pane cannot be captured. */
export async function captureScreen(pane: Pane, env: Env): Promise<string | null> {
  try {
    return await tmux(['capture-pane', '-p', '-J', '-t', pane.id], env, undefined, pane.socket)
  } catch {
    return null
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The one way cast types into a pane (`send`, `approve`, `deny --note`, scheduled deliveries,
 * `decide answer`, and teammates' actions, which run those commands). Each batch of keys is
 * preceded by keysReachAgent: the agent's process must be running and the foreground process
 * group of the pane's terminal (src/lib/agents/foreground.ts), else exit 5 and nothing more is typed.
 */
export interface Typist {
  /** tmux key names (`Enter`, `Escape`, `1`), in order, in one batch. */
  keys(keys: readonly string[]): Promise<void>
  /** Text as literal keys (no key names, no Enter). */
  literal(text: string): Promise<void>
  /**
   * A message as the program's next input, then Enter. One line goes as literal keys
   * (`send-keys -l`; trailing semicolons, which tmux would read as a command separator, as hex
   * keys); several lines go through a paste buffer with bracketed paste, so an agent's prompt
   * receives them as one message instead of submitting line by line. Enter follows after a short
   * pause (checked again), so an agent that groups fast input as a paste still sees it as a key.
   * The caller has checked the text (checkMessageText): no control bytes but newline and tab, so
   * no paste-end marker (`ESC [201~`) can occur inside the paste.
   */
  message(text: string, options?: {enterDelayMs?: number}): Promise<void>
}

/** Who the keys are for: the pane, the agent's process in it, and the session's short id for messages. */
export interface TypingTarget {
  readonly pane: Pane
  readonly pid: number
  readonly session: string
}

export function typist(target: TypingTarget, env: Env): Typist {
  const {pane} = target
  const s = pane.socket
  let typed = false
  let inMode = pane.inMode
  /** Check, leave copy mode, run one batch. */
  const batch = async (run: () => Promise<void>): Promise<void> => {
    await keysReachAgent(target, env, typed)
    if (inMode) await tmux(['send-keys', '-t', pane.id, '-X', 'cancel'], env, undefined, s)
    inMode = false
    typed = true
    await run()
  }

  const literal = async (text: string): Promise<void> => {
    const body = text.replace(/;+$/, '')
    const semis = text.length - body.length
    if (body !== '') await tmux(['send-keys', '-t', pane.id, '-l', '--', body], env, undefined, s)
    if (semis > 0) await tmux(['send-keys', '-t', pane.id, '-H', ...Array.from({length: semis}, () => '3b')], env, undefined, s)
  }

  return {
    keys: async (keys) => {
      if (keys.length > 0) await batch(() => tmux(['send-keys', '-t', pane.id, ...keys], env, undefined, s).then(() => undefined))
    },
    literal: (text) => batch(() => literal(text)),
    message: async (text, options = {}) => {
      await batch(async () => {
        if (/[\r\n]/.test(text)) {
          const buffer = `cast-${process.pid}-${Date.now()}`
          await tmux(['load-buffer', '-b', buffer, '-'], env, text.replace(/\r\n?/g, '\n'), s)
          await tmux(['paste-buffer', '-p', '-d', '-b', buffer, '-t', pane.id], env, undefined, s)
        } else {
          await literal(text)
        }
      })
      await sleep(options.enterDelayMs ?? 150)
      await batch(() => tmux(['send-keys', '-t', pane.id, 'Enter'], env, undefined, s).then(() => undefined))
    },
  }
}

/**
 * Right before a batch of keys: the agent's process is running and owns the pane's terminal
 * (src/lib/agents/foreground.ts), else a CastError (exit 5). `typed`: earlier batches went out, so the
 * refusal says so instead of "nothing typed".
 */
async function keysReachAgent(target: TypingTarget, env: Env, typed: boolean): Promise<void> {
  const {foregroundRefusal} = await import('./foreground.js')
  let tty: string | null
  try {
    tty = (await tmux(['display-message', '-p', '-t', target.pane.id, '#{pane_tty}'], env, undefined, target.pane.socket)).trim() || null
  } catch (error) {
    throw new CastError(
      `Session ${target.session}: tmux ${target.pane.id} cannot be read (${(error as Error).message}); ${typed ? 'stopped typing there' : 'nothing typed'}.`,
      EXIT.REFUSED,
    )
  }

  const refusal = foregroundRefusal(target.pid, tty)
  if (refusal === null) return
  const what =
    refusal.kind === 'suspended'
      ? 'the agent is suspended'
      : refusal.kind === 'background'
        ? 'the agent is not in the foreground'
        : 'the agent is gone'
  const rest = typed ? 'stopped before the rest was typed (the keys typed so far went to the agent)' : 'nothing typed'
  throw new CastError(
    `Session ${target.session}: ${what}; ${rest}. In tmux ${target.pane.id} (${target.pane.address}), ${refusal.why}.`,
    EXIT.REFUSED,
    refusal.kind === 'gone' ? [] : ['Bring the agent back to the foreground in its terminal (fg), then try again.'],
  )
}

export interface NewWindow {
  readonly argv: readonly string[]
  readonly cwd: string
  readonly name: string
  /** Variables set in the window (the server's environment is not ours). */
  readonly vars: Readonly<Record<string, string>>
  /** The tmux session to open the window in when cast is not running inside tmux. */
  readonly session: string
}

/**
 * Start a program in a new tmux window, detached (focus stays where it is): inside tmux in the
 * current session, else in `session` (created on first use). Returns the new pane.
 */
export async function openWindow(w: NewWindow, env: Env): Promise<Pane> {
  const vars = Object.entries(w.vars).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  // tmux runs a single-word command through sh -c; two or more words are exec'd as they are.
  const argv = w.argv.length === 1 ? ['env', ...w.argv] : [...w.argv]
  const format = ['-P', '-F', '#{pane_pid} #{pane_id} #{session_name}:#{window_index}.#{pane_index}']
  const parse = (out: string): Pane => {
    const m = /^(\d+) (%\d+) (.*)$/.exec(out.trim())
    if (!m) throw new TmuxError(`unexpected answer from tmux: ${out.trim()}`)
    return {address: m[3]!, dead: false, id: m[2]!, inMode: false, pid: Number(m[1])}
  }

  if (env.TMUX) return parse(await tmux(['new-window', '-d', ...format, '-n', w.name, '-c', w.cwd, ...vars, '--', ...argv], env))
  const exists = await tmux(['has-session', '-t', `=${w.session}`], env).then(
    () => true,
    () => false,
  )
  if (!exists) {
    try {
      return parse(
        await tmux(
          ['new-session', '-d', ...format, '-s', w.session, '-n', w.name, '-c', w.cwd, '-x', '200', '-y', '50', ...vars, '--', ...argv],
          env,
        ),
      )
    } catch (error) {
      // Another spawn created it in the meantime: open a window in it instead.
      if (!/duplicate session/.test((error as Error).message)) throw error
    }
  }

  return parse(await tmux(['new-window', '-d', ...format, '-t', `=${w.session}:`, '-n', w.name, '-c', w.cwd, ...vars, '--', ...argv], env))
}

/** Is the pane still there with its program running? */
export async function paneAlive(paneId: string, env: Env): Promise<boolean> {
  try {
    return (await tmux(['display-message', '-p', '-t', paneId, '#{pane_dead}'], env)).trim() === '0'
  } catch {
    return false
  }
}
