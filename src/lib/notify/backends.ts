/**
 * Where a notification goes: freedesktop notifications over D-Bus (`notify-send`
 * from libnotify, else `gdbus call`), macOS (`osascript`), tmux `display-message` on every
 * client of every tmux server the user owns, a terminal bell, or a custom command. Every call is
 * an argument array, never a shell; text is data, and what a person will read goes through
 * notificationText (src/core/model/sanitize.ts): no controls, no bidi overrides, no NUL, and
 * markup escaped where the freedesktop server renders it.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Notification} from '../../core/model/notify.js'
import {notificationText} from '../../core/model/sanitize.js'
import type {Env} from '../home/env.js'
import {tmuxSockets} from '../agents/tmux.js'

export const BACKENDS = ['auto', 'freedesktop', 'macos', 'tmux', 'bell', 'command', 'stdout', 'push', 'ntfy'] as const
export type BackendName = (typeof BACKENDS)[number]

export interface NotifyBackendConfig {
  readonly backends: readonly BackendName[]
  /** argv for the command backend: {summary}, {body}, {kind}, {urgency}, {sessions} are filled in; the notification as JSON on stdin. */
  readonly command: readonly string[] | null
  /** ntfy's server and topic, when set: `auto` includes ntfy. */
  readonly ntfy?: object | null
}

export interface Delivery {
  readonly backend: BackendName
  readonly ok: boolean
  readonly error?: string
}

function onPath(cmd: string, env: Env): boolean {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (!dir) continue
    try {
      fs.accessSync(path.join(dir, cmd), fs.constants.X_OK)
      return true
    } catch {
      // not here
    }
  }

  return false
}

/**
 * What `auto` means here: the desktop when there is one, tmux inside tmux, else the bell; and
 * the phone's backends (Web Push, silent while no device subscribed; ntfy when configured) are
 * added by resolveBackends.
 */
export function autoBackends(env: Env, platform: NodeJS.Platform = process.platform): BackendName[] {
  const out: BackendName[] = []
  if (platform === 'darwin') out.push('macos')
  else if (env.DBUS_SESSION_BUS_ADDRESS && (onPath('notify-send', env) || onPath('gdbus', env))) out.push('freedesktop')
  if (env.TMUX) out.push('tmux')
  if (out.length === 0) out.push('bell')
  return out
}

export function resolveBackends(config: NotifyBackendConfig, env: Env): BackendName[] {
  const phone: BackendName[] = ['push', ...(config.ntfy ? (['ntfy'] as const) : [])]
  const list = config.backends.flatMap((b) => (b === 'auto' ? [...autoBackends(env), ...phone] : [b]))
  return [...new Set(list)]
}

async function run(argv: readonly string[], env: Env, input?: string): Promise<void> {
  const {execa} = await import('execa')
  await execa(argv[0]!, argv.slice(1), {
    env: env as Record<string, string>,
    extendEnv: false,
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
    timeout: 10_000,
  })
}

const GDBUS_NOTIFICATIONS = ['--session', '--dest', 'org.freedesktop.Notifications', '--object-path', '/org/freedesktop/Notifications']

/**
 * Does the notification server render markup in bodies (`body-markup` in GetCapabilities)? Asked
 * with gdbus on each notification (the server may have changed); without gdbus, or when the server
 * does not answer, assume it does: escaped text shows `&lt;` at worst, unescaped markup a link.
 */
export async function serverRendersMarkup(env: Env): Promise<boolean> {
  if (!onPath('gdbus', env)) return true
  try {
    const {execa} = await import('execa')
    const r = await execa('gdbus', ['call', ...GDBUS_NOTIFICATIONS, '--method', 'org.freedesktop.Notifications.GetCapabilities'], {
      env: env as Record<string, string>,
      extendEnv: false,
      timeout: 5000,
    })
    return /'body-markup'/.test(r.stdout)
  } catch {
    return true
  }
}

/** freedesktop: org.freedesktop.Notifications.Notify on the session bus. */
async function freedesktop(n: Notification, env: Env): Promise<void> {
  const urgency = n.urgency === 'low' ? 'low' : 'normal'
  // The summary is plain text in the specification; the body may be markup.
  const summary = notificationText(n.summary)
  const body = notificationText(n.body, await serverRendersMarkup(env))
  if (onPath('notify-send', env)) {
    await run(
      [
        'notify-send',
        '--app-name=cast',
        `--urgency=${urgency}`,
        `--category=${n.kind === 'done' ? 'im.received' : 'presence'}`,
        '--',
        summary,
        body,
      ],
      env,
    )
    return
  }

  // gdbus: app_name, replaces_id, icon, summary, body, actions, hints, timeout.
  const hint = `{'urgency': <byte ${urgency === 'low' ? 0 : 1}>}`
  await run(
    [
      'gdbus',
      'call',
      ...GDBUS_NOTIFICATIONS,
      '--method',
      'org.freedesktop.Notifications.Notify',
      '--',
      'cast',
      '0',
      '',
      gvariantString(summary),
      gvariantString(body),
      '[]',
      hint,
      '-1',
    ],
    env,
  )
}

/** A GVariant text literal for gdbus (it parses its arguments as GVariant). */
export function gvariantString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`
}

async function macos(n: Notification, env: Env): Promise<void> {
  // The text goes in as argv, never into the script.
  await run(
    [
      'osascript',
      '-e',
      'on run argv',
      '-e',
      'display notification (item 2 of argv) with title "cast" subtitle (item 1 of argv)',
      '-e',
      'end run',
      notificationText(n.summary),
      notificationText(n.body).replace(/\n/g, ' · '),
    ],
    env,
  )
}

/** tmux: a message on every attached client of every server the user owns. */
async function tmux(n: Notification, env: Env): Promise<void> {
  const {execa} = await import('execa')
  const text = notificationText(`cast: ${n.summary} — ${n.body.split('\n')[0] ?? ''}`)
    .replace(/\n/g, ' ')
    .replace(/#/g, '##')
  let shown = 0
  const sockets = tmuxSockets(env)
  for (const socket of sockets.length > 0 ? sockets : [undefined]) {
    const base = socket ? ['-S', socket] : []
    let clients: string[] = []
    try {
      const r = await execa('tmux', [...base, 'list-clients', '-F', '#{client_name}'], {
        env: env as Record<string, string>,
        extendEnv: false,
        timeout: 5000,
      })
      clients = r.stdout.split('\n').filter((c) => c.trim() !== '')
    } catch {
      continue
    }

    for (const c of clients) {
      try {
        await execa('tmux', [...base, 'display-message', '-c', c, '-d', '8000', text], {
          env: env as Record<string, string>,
          extendEnv: false,
          timeout: 5000,
        })
        shown++
      } catch {
        // that client went away
      }
    }
  }

  if (shown === 0) throw new Error('no tmux client is attached')
}

function bell(): void {
  try {
    const fd = fs.openSync('/dev/tty', 'w')
    try {
      fs.writeSync(fd, '\u0007')
    } finally {
      fs.closeSync(fd)
    }
  } catch {
    if (process.stdout.isTTY) process.stdout.write('\u0007')
    else throw new Error('no terminal to ring')
  }
}

async function command(n: Notification, argv: readonly string[] | null, env: Env): Promise<void> {
  if (!argv || argv.length === 0) throw new Error('notify.command is not set in the config')
  const fill = (a: string): string =>
    a.replace(/\{(summary|body|kind|urgency|sessions)\}/g, (_m, k: string) =>
      notificationText(
        k === 'summary' ? n.summary : k === 'body' ? n.body : k === 'kind' ? n.kind : k === 'urgency' ? n.urgency : n.sessions.join(','),
      ),
    )
  await run(
    argv.map(fill),
    env,
    JSON.stringify({body: n.body, kind: n.kind, sessions: n.sessions, summary: n.summary, urgency: n.urgency}) + '\n',
  )
}

/** Send one notification to every backend; a failing backend does not stop the others. */
export async function deliver(
  n: Notification,
  backends: readonly BackendName[],
  config: NotifyBackendConfig,
  env: Env,
): Promise<Delivery[]> {
  const out: Delivery[] = []
  for (const b of backends) {
    try {
      if (b === 'freedesktop') await freedesktop(n, env)
      else if (b === 'macos') await macos(n, env)
      else if (b === 'tmux') await tmux(n, env)
      else if (b === 'bell') bell()
      else if (b === 'command') await command(n, config.command, env)
      else if (b === 'push' || b === 'ntfy') throw new Error('the phone is paged by the notifier (cast notify, cast daemon --notify)')
      out.push({backend: b, ok: true})
    } catch (error) {
      const e = error as {stderr?: string; shortMessage?: string; message?: string}
      out.push({
        backend: b,
        error: String(e.stderr || e.shortMessage || e.message || error)
          .trim()
          .split('\n')[0],
        ok: false,
      })
    }
  }

  return out
}
