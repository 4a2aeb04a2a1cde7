/**
 * Paging over the real agent CLIs (issue 15): `cast notify` on a real D-Bus session bus (the test's
 * own dbus-daemon and a recording notification server) while the real Claude Code TUI opens a
 * permission dialog against the mock model server; then `cast inbox` approves it from the keyboard.
 * docs/paging.md says what was measured.
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {type Bus, HAVE_BUS, startBus} from '../e2e/fixtures/bus.js'
import {BIN, waitForWatcher} from '../helpers/cli.js'
import {recordFigure, sessions, until} from './harness/cast.js'
import {sequence, startMock, text, tool} from './harness/mock/server.js'
import {CLAUDE, makeClaudeHome} from './claude_code/setup.js'

const AGENT = 'claude_code'
const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c()
    } catch {
      /* best effort */
    }
  }
})

describe.skipIf(!HAVE_BUS)(AGENT, () => {
  it('approval: cast notify puts one "Claude is waiting for approval" on a real D-Bus bus (the delay is recorded, not asserted); cast inbox approves it', async () => {
    const bus: Bus = await startBus()
    cleanups.push(() => bus.stop())
    const h = makeClaudeHome('page')
    const mock = await startMock(sequence([tool('Bash', {command: 'touch approved.txt', description: 'run it'}), text('Made it.')]))
    cleanups.push(async () => {
      h.tmux.stop()
      await mock.close()
      h.cleanup()
    })
    const env = {...h.cast, DBUS_SESSION_BUS_ADDRESS: bus.address}
    const notify = spawn(process.execPath, [BIN, 'notify', '--json', '--backend', 'freedesktop'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    let notifyOut = ''
    notify.stdout!.on('data', (c) => (notifyOut += String(c)))
    notify.stderr!.on('data', (c) => (notifyOut += String(c)))
    cleanups.push(() => void notify.kill('SIGKILL'))
    // Started, holding the ingester lease, before the agent.
    await waitForWatcher(h.castHome, 60_000)
    const pane = h.tmux.open([CLAUDE, '--permission-mode', 'default'], {cwd: h.project, env: h.agentEnv(mock.url)})
    await h.tmux.waitFor(pane, /manual mode on/, 60_000)
    h.tmux.type(pane, 'make a file')
    await h.tmux.waitFor(pane, /Do you want to proceed\?/, 60_000)
    const t0 = Date.now()

    const [got] = await bus.waitNotes(1, 90_000)
    // Signed: negative when the bus had it before this test's screen poll saw the dialog.
    const ms = Math.round(got!.received_at - t0)
    recordFigure(AGENT, 'approval', {ms, notify: 'freedesktop'})
    expect(got).toMatchObject({app_name: 'cast', summary: 'Claude is waiting for approval'})
    // The ask line is what cast knows at that moment (2.1.328's registry names no tool yet: "Approve tool?").
    expect(got!.body.split('\n')[1]).toMatch(/^Approve \S+\?$/)
    const s = (await sessions(env)).find((x) => x.agent === AGENT && x.pid === pane.pid)
    expect(s).toMatchObject({reason: 'approval', state: 'needs_input'})

    // The inbox in a window of the same server: `a` answers the real dialog, the tool runs.
    const inbox = h.tmux.open([process.execPath, BIN, 'inbox'], {cwd: h.project, env, name: 'inbox'})
    const screen = (): string => h.tmux.capture(inbox)
    const deadline = Date.now() + 60_000
    while (!/› ○ needs input:approval/.test(screen())) {
      if (Date.now() > deadline) throw new Error(`inbox never showed the approval:\n${screen()}`)
      await new Promise((r) => setTimeout(r, 200))
    }

    h.tmux.keys(inbox, 'a')
    await until(env, (x) => x.agent === AGENT && x.pid === pane.pid && x.reason !== 'approval', 60_000, 'the approval answered')
    for (const end = Date.now() + 90_000; !fs.existsSync(path.join(h.project, 'approved.txt'));) {
      if (Date.now() > end) throw new Error(`the tool never ran; inbox:\n${screen()}`)
      await new Promise((r) => setTimeout(r, 200))
    }

    expect(screen()).toMatch(/ok: /)
    // One ask, one approval notification (the turn that ends after it pages "waiting for input").
    expect(bus.notes().filter((x) => x.summary === 'Claude is waiting for approval')).toHaveLength(1)
    expect(bus.notes().every((x) => /^Claude is waiting for (approval|input)$/.test(x.summary))).toBe(true)
  })
})
