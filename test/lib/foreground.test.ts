/**
 * src/lib/agents/foreground.ts against real processes on a real terminal: jobs of an interactive bash in
 * a tmux pane of the test's own server.
 */
import {execFileSync} from 'node:child_process'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {startTmux, type TmuxServer, waitFor} from '../fakes/agents.js'
import {foregroundRefusal} from '../../src/lib/agents/foreground.js'

describe('foregroundRefusal', () => {
  let server: TmuxServer
  let pane: string
  let shell: number
  let tty: string

  beforeEach(async () => {
    server = startTmux({HOME: process.env.HOME ?? '/tmp', PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ '})
    pane = server.tmux(['new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'base:', '--', 'bash', '--norc', '--noprofile', '-i']).trim()
    shell = Number(server.tmux(['display-message', '-p', '-t', pane, '#{pane_pid}']).trim())
    tty = server.tmux(['display-message', '-p', '-t', pane, '#{pane_tty}']).trim()
    await waitFor(() => /^\$/m.test(server.tmux(['capture-pane', '-p', '-t', pane])) || null, 20_000)
  })

  afterEach(() => server.kill())

  const run = (line: string): void => {
    server.tmux(['send-keys', '-t', pane, '-l', line])
    server.tmux(['send-keys', '-t', pane, 'Enter'])
  }

  const child = (): Promise<number> =>
    waitFor(() => {
      // ps exits 1 when it lists nothing (the job not started yet): that is "not yet", not an error.
      let out = ''
      try {
        out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(shell)], {encoding: 'utf8'}).trim()
      } catch {
        return null
      }

      return out === '' ? null : Number(out.split('\n')[0])
    }, 20_000)

  it('passes the foreground job, refuses a background job, a stopped job, another terminal and a gone process', async () => {
    // The shell at its prompt owns the terminal.
    expect(foregroundRefusal(shell, tty)).toBeNull()

    run('sleep 300 &')
    const bg = await child()
    const background = foregroundRefusal(bg, tty)
    expect(background?.kind).toBe('background')
    expect(background?.why).toMatch(/bash \(process group \d+\) has the terminal/)

    run('fg')
    await waitFor(() => foregroundRefusal(bg, tty) === null || null, 20_000)
    expect(foregroundRefusal(shell, tty)?.kind).toBe('background')

    server.tmux(['send-keys', '-t', pane, 'C-z'])
    await waitFor(() => foregroundRefusal(bg, tty)?.kind === 'suspended' || null, 20_000)
    expect(foregroundRefusal(bg, tty)?.why).toMatch(/stopped \(state T/)
    // The shell has the terminal back: keys would run there.
    await waitFor(() => foregroundRefusal(shell, tty) === null || null, 20_000)

    // Another pane's terminal is not this process's.
    const other = server.tmux(['new-window', '-d', '-P', '-F', '#{pane_tty}', '-t', 'base:', '--', 'sleep', '300']).trim()
    expect(foregroundRefusal(shell, other)?.why).toContain("not on the pane's terminal")

    process.kill(bg, 'SIGKILL')
    await waitFor(() => foregroundRefusal(bg, tty)?.kind === 'gone' || null, 20_000)
  })
})
