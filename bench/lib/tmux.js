/**
 * A private tmux server for the benchmarks, on a socket under `dir` (as `$TMUX_TMPDIR`, so a
 * cast run with that environment finds it and no other): a few windows running `sh`, an optional
 * window running a process named like an agent, and an optional attached client (in a pty from
 * util-linux `script`), which is what makes tmux draw its status line.
 */
import {spawn, spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

import {sleep} from './common.js'

export function hasTmux() {
  return spawnSync('tmux', ['-V']).status === 0
}

export function startTmux(dir, {panes = 3, agent = null} = {}) {
  const uid = process.getuid()
  const sockDir = path.join(dir, `tmux-${uid}`)
  fs.mkdirSync(sockDir, {recursive: true, mode: 0o700})
  const socket = path.join(sockDir, 'default')
  const env = {PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: dir, TMUX_TMPDIR: dir}
  const tmux = (...args) => {
    const r = spawnSync('tmux', ['-S', socket, '-f', '/dev/null', ...args], {encoding: 'utf8', env})
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`)
    return r.stdout.trim()
  }
  tmux('new-session', '-d', '-s', 'bench', '-x', '160', '-y', '48', 'sh')
  for (let i = 1; i < panes; i++) tmux('new-window', '-t', 'bench', 'sh')
  if (agent) {
    // A process named like the agent (a copy of sleep): the screen sweep treats its pane as an agent pane.
    const bin = path.join(dir, 'bin')
    fs.mkdirSync(bin, {recursive: true})
    fs.copyFileSync('/bin/sleep', path.join(bin, agent.name))
    fs.chmodSync(path.join(bin, agent.name), 0o755)
    tmux('new-window', '-t', 'bench', '-c', agent.cwd, `${path.join(bin, agent.name)} infinity`)
  }
  const pid = Number(tmux('display-message', '-p', '#{pid}'))
  let client = null
  return {
    socket,
    pid,
    env,
    tmux,
    /** Attach a client in a pty (120×40) so the status line is drawn; resolves once it is attached. */
    async attach() {
      client = spawn('script', ['-qfc', `stty cols 120 rows 40; exec tmux -S '${socket}' attach -t bench`, '/dev/null'], {
        env: {...env, TERM: 'xterm-256color'},
        stdio: ['pipe', 'ignore', 'ignore'],
      })
      for (let i = 0; i < 50; i++) {
        await sleep(100)
        const r = spawnSync('tmux', ['-S', socket, 'list-clients'], {encoding: 'utf8', env})
        if (r.stdout.trim()) return client.pid
      }
      throw new Error('the tmux client did not attach')
    },
    async detach() {
      if (!client) return
      const c = client
      client = null
      spawnSync('tmux', ['-S', socket, 'detach-client', '-a'], {env})
      spawnSync('tmux', ['-S', socket, 'detach-client'], {env})
      await new Promise((resolve) => {
        if (c.exitCode !== null || c.signalCode !== null) return resolve()
        const t = setTimeout(() => c.kill('SIGKILL'), 3000)
        c.once('exit', () => {
          clearTimeout(t)
          resolve()
        })
      })
    },
    async stop() {
      await this.detach()
      spawnSync('tmux', ['-S', socket, 'kill-server'], {env})
    },
  }
}
