import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import {screenMatcher} from '../../../src/adapters/screen.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {processStartTime} from '../../../src/core/ingest/process-table.js'
import {type ScreenSweepStats, sweepScreens} from '../../../src/core/ingest/screen.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeTranscriptPath, writeFile} from '../../helpers/cli.js'
import {SCREENS, TmuxServer} from './screen-helpers.js'

let dir: string
let home: string
let store: Store
let ingester: Ingester
let tmux: TmuxServer
const clock = Date.now()
const matcher = screenMatcher()
const ID = '7a1c2a3b-1111-4222-8333-944455556666'

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-gate-'))
  home = path.join(dir, 'home')
  fs.mkdirSync(home)
  store = new Store(path.join(dir, 'cast'))
  ingester = new Ingester(store, [claudeCode], {env: {HOME: home}, home}, {clock: () => clock, device: 'box', me: 'me@example.com'})
  tmux = new TmuxServer(dir, 'gate')
})
afterEach(() => {
  tmux.kill()
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const sweep = (): ScreenSweepStats => sweepScreens(store, ingester, matcher, {clock: () => clock, env: tmux.env})
const row = () => store.loadSessions().find((r) => r.nativeId === ID)!

/** A Claude Code turn open at a Bash call, and the registry naming `pid` as its process. */
function claudeAt(cwd: string, pid: number): void {
  const base = {cwd, isSidechain: false, sessionId: ID, userType: 'external', version: '2.1.100'}
  const at = (ms: number) => new Date(clock - ms).toISOString()
  const lines = [
    {
      ...base,
      message: {content: 'Clean the build output', role: 'user'},
      parentUuid: null,
      timestamp: at(60_000),
      type: 'user',
      uuid: 'u1',
    },
    {
      ...base,
      message: {
        content: [{id: 'toolu_1', input: {command: 'rm -rf build'}, name: 'Bash', type: 'tool_use'}],
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        stop_reason: 'tool_use',
        type: 'message',
      },
      parentUuid: 'u1',
      timestamp: at(59_000),
      type: 'assistant',
      uuid: 'a1',
    },
  ]
  writeFile(claudeTranscriptPath(home, cwd, ID), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  writeFile(
    path.join(home, '.claude', 'sessions', `${pid}.json`),
    JSON.stringify({cwd, pid, sessionId: ID, startedAt: processStartTime(pid)}),
  )
  ingester.sync()
}

describe('which tmux servers the screen sweep asks (real tmux server)', () => {
  it('a server whose panes run no agent is not asked at all: the sweep starts no tmux process', async () => {
    const shell = tmux.pane('sh', dir, 'dev@box:~$ ')
    await tmux.waitFor(shell, 'dev@box')

    const idle = sweep()

    expect(idle).toMatchObject({agentPanes: 0, calls: 0, skipped: 1, tmux: 'ok'})
  })

  it('an agent appearing in a pane is read by the next sweep; while the same agents run, only their screens are captured', async () => {
    const shell = tmux.pane('sh', dir, 'dev@box:~$ ')
    await tmux.waitFor(shell, 'dev@box')
    const before = sweep()
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    claudeAt(cwd, pane.pid)
    await tmux.waitFor(pane, 'Do you want to proceed?')

    const first = sweep()
    const approval = row().reason
    const again = sweep()

    expect(before).toMatchObject({calls: 0})
    expect(first).toMatchObject({agentPanes: 1, calls: 2, mapped: 1, written: 1})
    expect(approval).toBe('approval')
    expect(again).toMatchObject({agentPanes: 1, calls: 1, mapped: 1, written: 0})
  })

  it('an agent started in a shell pane the server already had is found (the pane is listed again)', async () => {
    const first = tmux.pane('claude', path.join(dir, 'one'), 'Working... (esc to interrupt)')
    await tmux.waitFor(first, 'Working')
    expect(sweep()).toMatchObject({agentPanes: 1})
    const out = tmux.tmux('new-window', '-d', '-P', '-F', '#{pane_id}', '-t', 'main:', '-c', dir, '/bin/sh')
    const shellId = out.trim()
    await new Promise((r) => setTimeout(r, 300))
    expect(sweep()).toMatchObject({agentPanes: 1})
    const screen = path.join(dir, 'screen-two.txt')
    fs.writeFileSync(screen, SCREENS.claudeApproval)
    const cwd = path.join(dir, 'two')
    fs.mkdirSync(cwd)
    tmux.tmux('send-keys', '-t', shellId, `cd ${cwd} && exec ${path.join(dir, 'bin', 'claude')} ${screen}`, 'Enter')
    const pid = Number(tmux.tmux('display-message', '-p', '-t', shellId, '#{pane_pid}').trim())
    await tmux.waitFor({id: shellId, pid, screenFile: screen, show: () => {}}, 'Do you want to proceed?')
    claudeAt(cwd, pid)

    const after = sweep()

    expect(after).toMatchObject({agentPanes: 2, mapped: 1})
    expect(row().reason).toBe('approval')
  })

  it('the agent gone, the server is not asked again and what its pane showed is taken back', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    tmux.pane('sh', dir, 'dev@box:~$ ')
    claudeAt(cwd, pane.pid)
    await tmux.waitFor(pane, 'Do you want to proceed?')
    sweep()
    tmux.tmux('kill-pane', '-t', pane.id)
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && fs.existsSync(`/proc/${pane.pid}`)) await new Promise((r) => setTimeout(r, 50))

    const closed = sweep()

    expect(closed).toMatchObject({calls: 0, removed: 1, skipped: 1})
    expect(row().facts.approval).toBeNull()
  })
})
