import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import {codex} from '../../../src/adapters/codex/index.js'
import {pi} from '../../../src/adapters/pi/index.js'
import {screenMatcher} from '../../../src/adapters/screen.js'
import {Ingester} from '../../../src/core/ingest/engine.js'
import {processStartTime} from '../../../src/core/ingest/process-table.js'
import {capturePanes, type ScreenSweepStats, sweepScreens, tmuxServer} from '../../../src/core/ingest/screen.js'
import {screenContributions} from '../../../src/core/store/screen.js'
import {Store} from '../../../src/core/store/store.js'
import {claudeTranscriptPath, writeFile} from '../../helpers/cli.js'
import {SCREENS, TmuxServer} from './screen-helpers.js'

let dir: string
let home: string
let store: Store
let ingester: Ingester
let tmux: TmuxServer
let clock: number
const matcher = screenMatcher()

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-screen-'))
  home = path.join(dir, 'home')
  fs.mkdirSync(home)
  store = new Store(path.join(dir, 'cast'))
  clock = Date.now()
  const env = {CODEX_HOME: path.join(home, '.codex'), HOME: home, PI_CODING_AGENT_DIR: path.join(home, '.pi', 'agent')}
  ingester = new Ingester(store, [claudeCode, codex, pi], {env, home}, {clock: () => clock, device: 'box', me: 'me@example.com'})
  tmux = new TmuxServer(dir, 'sweep')
})
afterEach(() => {
  tmux.kill()
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

const sweep = (): ScreenSweepStats => sweepScreens(store, ingester, matcher, {clock: () => clock, env: tmux.env})
const row = (nativeId: string) => store.loadSessions().find((r) => r.nativeId === nativeId)!
const iso = (ms: number): string => new Date(ms).toISOString()

// ---------------------------------------------------------------- agent files

const CLAUDE_ID = '6f1c2a3b-1111-4222-8333-944455556666'

/** A Claude Code turn stopped at a Bash call with no result yet (the transcript cannot tell why). */
function claudeSession(cwd: string, options: {settled?: boolean} = {}): void {
  const at = clock - 60_000
  const base = {cwd, isSidechain: false, sessionId: CLAUDE_ID, userType: 'external', version: '2.1.100'}
  const lines: unknown[] = [
    {...base, message: {content: 'Clean the build output', role: 'user'}, parentUuid: null, timestamp: iso(at), type: 'user', uuid: 'u1'},
    options.settled
      ? {
          ...base,
          message: {
            content: [{text: 'Done: build/ is gone.', type: 'text'}],
            id: 'msg_1',
            model: 'claude-sonnet-4-5',
            role: 'assistant',
            stop_reason: 'end_turn',
            type: 'message',
          },
          parentUuid: 'u1',
          timestamp: iso(at + 1000),
          type: 'assistant',
          uuid: 'a1',
        }
      : {
          ...base,
          message: {
            content: [
              {
                id: 'toolu_1',
                input: {command: 'rm -rf build', description: 'Remove the stale build directory'},
                name: 'Bash',
                type: 'tool_use',
              },
            ],
            id: 'msg_1',
            model: 'claude-sonnet-4-5',
            role: 'assistant',
            stop_reason: 'tool_use',
            type: 'message',
          },
          parentUuid: 'u1',
          timestamp: iso(at + 1000),
          type: 'assistant',
          uuid: 'a1',
        },
  ]
  writeFile(claudeTranscriptPath(home, cwd, CLAUDE_ID), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
}

/** Claude Code's registry file for a running process (older builds write no status). */
function claudeRegistry(pid: number, cwd: string, status?: string): void {
  const rec: Record<string, unknown> = {cwd, pid, sessionId: CLAUDE_ID, startedAt: processStartTime(pid)}
  if (status) Object.assign(rec, {status, updatedAt: clock - 1000})
  writeFile(path.join(home, '.claude', 'sessions', `${pid}.json`), JSON.stringify(rec))
}

const CODEX_ID = '019dd0b4-7e10-7c22-8a55-91d3f0b2c602'

/** A Codex rollout whose turn is open at an exec call: Codex does not persist approval requests. */
function codexRollout(cwd: string): string {
  const at = clock - 30_000
  const p = path.join(home, '.codex', 'sessions', '2026', '11', '29', `rollout-2026-11-29T10-00-00-${CODEX_ID}.jsonl`)
  const lines = [
    {
      payload: {cli_version: '0.128.0', cwd, id: CODEX_ID, originator: 'codex_cli_rs', source: 'cli', timestamp: iso(at)},
      timestamp: iso(at),
      type: 'session_meta',
    },
    {payload: {approval_policy: 'on-request', cwd, model: 'gpt-5.5', turn_id: 'turn-1'}, timestamp: iso(at + 1000), type: 'turn_context'},
    {payload: {turn_id: 'turn-1', type: 'task_started'}, timestamp: iso(at + 1000), type: 'event_msg'},
    {
      payload: {content: [{text: 'Migrate users to UUID keys', type: 'input_text'}], role: 'user', type: 'message'},
      timestamp: iso(at + 1005),
      type: 'response_item',
    },
    {payload: {images: [], message: 'Migrate users to UUID keys', type: 'user_message'}, timestamp: iso(at + 1005), type: 'event_msg'},
    {
      payload: {arguments: '{"cmd":"psql -f migrations/0008_uuid.sql"}', call_id: 'call_1', name: 'exec_command', type: 'function_call'},
      timestamp: iso(at + 5000),
      type: 'response_item',
    },
  ]
  writeFile(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  return p
}

/** A pi session whose turn is open at a tool call, last written `at`. */
function piSession(id: string, cwd: string, at: number): void {
  const enc = `--${cwd.replace(/^\//, '').replace(/[/\\:]/g, '-')}--`
  const p = path.join(home, '.pi', 'agent', 'sessions', enc, `2026-11-29T10-00-00-000Z_${id}.jsonl`)
  const lines = [
    {cwd, id, timestamp: iso(at - 2000), type: 'session', version: 3},
    {
      id: 'e1',
      message: {content: [{text: 'Rewrite the auth middleware', type: 'text'}], role: 'user', timestamp: at - 1000},
      parentId: null,
      timestamp: iso(at - 1000),
      type: 'message',
    },
    {
      id: 'e2',
      message: {
        content: [{arguments: {path: 'src/auth.ts'}, id: 't1', name: 'read', type: 'toolCall'}],
        model: 'claude-sonnet-4-5',
        provider: 'anthropic',
        role: 'assistant',
        stopReason: 'toolUse',
        timestamp: at,
      },
      parentId: 'e1',
      timestamp: iso(at),
      type: 'message',
    },
  ]
  writeFile(p, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
}

// ---------------------------------------------------------------- tests

describe('the tmux sweep (real tmux server)', () => {
  it('a Claude Code permission dialog becomes the approval hard block, named as coming from the screen', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    expect(row(CLAUDE_ID)).toMatchObject({reason: 'turn_pending', state: 'working'})
    await tmux.waitFor(pane, 'Do you want to proceed?')

    const stats = sweep()

    expect(stats).toMatchObject({agentPanes: 1, calls: 2, mapped: 1, tmux: 'ok', written: 1})
    const r = row(CLAUDE_ID)
    expect(r.facts.approval).toMatchObject({source: {kind: 'screen', ref: `tmux ${pane.id} (main:0.0)`}, text: 'rm -rf build'})
    expect(r.facts.sources['approval']).toEqual({kind: 'screen', ref: `tmux ${pane.id} (main:0.0)`})
    expect(r).toMatchObject({bucket: 'questions', reason: 'approval', state: 'needs_input'})
  })

  it('the dialog answered: a spinner is work in progress, the approval is gone', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    await tmux.waitFor(pane, 'Do you want to proceed?')
    sweep()

    pane.show(SCREENS.claudeBusy)
    await tmux.waitFor(pane, 'Hullaballooing')
    clock += 2000
    sweep()

    const r = row(CLAUDE_ID)
    expect(r.facts.approval).toBeNull()
    expect(r.facts.process).toMatchObject({alive: true, pid: pane.pid, source: {kind: 'screen'}, status: 'working'})
    expect(r).toMatchObject({reason: 'producing', state: 'working'})
  })

  it('an API error banner becomes the error hard block', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeError)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    await tmux.waitFor(pane, 'API Error: 401')

    sweep()

    const r = row(CLAUDE_ID)
    expect(r.facts.error?.text).toMatch(/^API Error: 401 /)
    expect(r.facts.error?.source.kind).toBe('screen')
    expect(r).toMatchObject({reason: 'error', state: 'needs_input'})
  })

  it('a Codex approval (not in its files) is read through the process holding the rollout open', async () => {
    const cwd = path.join(dir, 'api')
    const rollout = codexRollout(cwd)
    const pane = tmux.pane('codex', cwd, SCREENS.codexApproval, {hold: rollout})
    await tmux.waitFor(pane, 'Would you like to run the following command?')
    ingester.sync()
    expect(row(CODEX_ID).facts.process).toMatchObject({alive: true, pid: pane.pid})
    expect(row(CODEX_ID)).toMatchObject({reason: 'turn_pending', state: 'working'})

    sweep()

    expect(row(CODEX_ID).facts.approval).toMatchObject({source: {kind: 'screen'}, text: 'psql -f migrations/0008_uuid.sql'})
    expect(row(CODEX_ID)).toMatchObject({reason: 'approval', state: 'needs_input'})
  })

  it('a plain prompt settles an open turn only once it stayed the same across two sweeps, and carries no reason of its own', async () => {
    const cwd = path.join(dir, 'api')
    const rollout = codexRollout(cwd)
    const pane = tmux.pane('codex', cwd, SCREENS.codexIdle, {hold: rollout})
    await tmux.waitFor(pane, 'Ask Codex to do anything')
    ingester.sync()

    sweep()
    const first = row(CODEX_ID)
    clock += 2000
    sweep()
    const second = row(CODEX_ID)

    expect(first).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(second).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(second.facts).toMatchObject({approval: null, error: null, question: null, settled: true})
    expect(second.facts.sources['settled']).toMatchObject({kind: 'screen'})
  })

  it('pi in a directory with exactly one open session is tied by its working directory; error, then busy', async () => {
    const cwd = path.join(dir, 'web')
    const pane = tmux.pane('pi', cwd, SCREENS.piError)
    piSession('a2000000-0000-4000-8000-000000000001', cwd, Date.now() + 1000)
    ingester.sync()
    await tmux.waitFor(pane, 'rate_limit_error')

    clock = Date.now() + 2000
    sweep()
    const blocked = row('a2000000-0000-4000-8000-000000000001')
    pane.show(SCREENS.piBusy)
    await tmux.waitFor(pane, 'Working...')
    clock += 2000
    sweep()
    const working = row('a2000000-0000-4000-8000-000000000001')

    expect(blocked).toMatchObject({reason: 'error', state: 'needs_input'})
    expect(blocked.facts.error?.text).toBe('Error: 429 rate_limit_error: This request would exceed your rate limit')
    expect(working).toMatchObject({reason: 'producing', state: 'working'})
    expect(working.facts.error).toBeNull()
  })

  it('never guesses between two sessions in the same directory', async () => {
    const cwd = path.join(dir, 'web')
    const pane = tmux.pane('pi', cwd, SCREENS.piError)
    piSession('a2000000-0000-4000-8000-000000000001', cwd, Date.now() + 1000)
    piSession('a2000000-0000-4000-8000-000000000002', cwd, Date.now() + 1000)
    ingester.sync()
    await tmux.waitFor(pane, 'rate_limit_error')

    const stats = sweep()

    expect(stats).toMatchObject({agentPanes: 1, mapped: 0, written: 0})
    expect(screenContributions(store)).toEqual([])
    for (const r of store.loadSessions()) expect(r.facts.error).toBeNull()
  })

  it('a session that started before the agent process (an old one in the same directory) is not taken', async () => {
    const cwd = path.join(dir, 'web')
    piSession('a2000000-0000-4000-8000-000000000003', cwd, Date.now() - 3_600_000)
    const pane = tmux.pane('pi', cwd, SCREENS.piError)
    ingester.sync()
    await tmux.waitFor(pane, 'rate_limit_error')

    expect(sweep()).toMatchObject({agentPanes: 1, mapped: 0})
  })

  it('better sources win: a settled turn and a live registry status are left alone', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    await tmux.waitFor(pane, 'Do you want to proceed?')

    claudeSession(cwd, {settled: true})
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    sweep()
    const settled = row(CLAUDE_ID)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd, 'busy')
    ingester.sync()
    sweep()
    const busy = row(CLAUDE_ID)

    expect(screenContributions(store)).toHaveLength(1)
    expect(settled.facts.approval).toBeNull()
    expect(settled).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(busy.facts.approval).toBeNull()
    expect(busy.facts.process?.source.kind).toBe('registry')
    expect(busy).toMatchObject({reason: 'producing', state: 'working'})
  })

  it('a wait the files moved past is stale: activity after the screen first showed it wins', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    await tmux.waitFor(pane, 'Do you want to proceed?')
    clock -= 120_000
    sweep()
    clock += 120_000

    ingester.recompose([{agent: 'claude_code', nativeId: CLAUDE_ID}])

    expect(row(CLAUDE_ID).facts.approval).toBeNull()
    expect(row(CLAUDE_ID)).toMatchObject({reason: 'turn_pending', state: 'working'})
  })

  it('three agent panes cost two tmux processes: one listing, one capture of them all', async () => {
    const app = path.join(dir, 'app')
    const api = path.join(dir, 'api')
    const web = path.join(dir, 'web')
    const claude = tmux.pane('claude', app, SCREENS.claudeApproval)
    const rollout = codexRollout(api)
    const cdx = tmux.pane('codex', api, SCREENS.codexApproval, {hold: rollout})
    const p = tmux.pane('pi', web, SCREENS.piError)
    tmux.pane('sh', dir, 'dev@box:~$ ')
    claudeSession(app)
    claudeRegistry(claude.pid, app)
    piSession('a2000000-0000-4000-8000-000000000001', web, Date.now() + 1000)
    await tmux.waitFor(claude, 'Do you want to proceed?')
    await tmux.waitFor(cdx, 'Would you like to run')
    await tmux.waitFor(p, 'rate_limit_error')
    ingester.sync()
    clock = Date.now() + 2000

    const stats = sweep()

    expect(stats).toMatchObject({agentPanes: 3, calls: 2, mapped: 3, panes: 4, written: 3})
    expect(
      store
        .loadSessions()
        .map((r) => [r.agent, r.reason])
        .sort(),
    ).toEqual([
      ['claude_code', 'approval'],
      ['codex', 'approval'],
      ['pi', 'error'],
    ])
  })

  it('an unchanged screen writes nothing; a closed pane or a stopped server takes the reading back', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    const other = tmux.pane('sh', dir, 'dev@box:~$ ')
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    await tmux.waitFor(pane, 'Do you want to proceed?')
    sweep()

    const again = sweep()
    tmux.tmux('kill-pane', '-t', pane.id)
    const closed = sweep()
    const afterClose = row(CLAUDE_ID)
    tmux.kill()
    const gone = sweep()

    expect(again).toMatchObject({removed: 0, transitions: 0, written: 0})
    expect(closed).toMatchObject({removed: 1})
    expect(afterClose.facts.approval).toBeNull()
    expect(screenContributions(store)).toEqual([])
    expect(gone).toMatchObject({mapped: 0, tmux: 'no_server'})
    expect(other.id).toMatch(/^%\d+$/)
  })

  it('a pane closed between the listing and the capture costs one more call, never the other panes', async () => {
    const a = tmux.pane('pi', path.join(dir, 'a'), 'screen of a')
    const b = tmux.pane('pi', path.join(dir, 'b'), 'screen of b')
    await tmux.waitFor(a, 'screen of a')
    await tmux.waitFor(b, 'screen of b')
    const {server} = tmuxServer(tmux.env)

    const cap = capturePanes(server!, [a.id, '%999', b.id], tmux.env)

    expect(cap.calls).toBe(2)
    expect([...cap.screens.keys()].sort()).toEqual([a.id, b.id].sort())
    expect(cap.screens.get(a.id)).toContain('screen of a')
    expect(cap.screens.get(b.id)).toContain('screen of b')
  })

  it('two panes running pi in one directory with one session: neither is tied (no guess)', async () => {
    const cwd = path.join(dir, 'web')
    const one = tmux.pane('pi', cwd, SCREENS.piError)
    const two = tmux.pane('pi', cwd, SCREENS.piBusy)
    piSession('a2000000-0000-4000-8000-000000000001', cwd, Date.now() + 1000)
    ingester.sync()
    await tmux.waitFor(one, 'rate_limit_error')
    await tmux.waitFor(two, 'Working...')

    expect(sweep()).toMatchObject({agentPanes: 2, mapped: 0})
  })

  it('a sweep that cannot see the server (another socket, tmux not on PATH) keeps readings while their agent process lives', async () => {
    const cwd = path.join(dir, 'app')
    const pane = tmux.pane('claude', cwd, SCREENS.claudeApproval)
    claudeSession(cwd)
    claudeRegistry(pane.pid, cwd)
    ingester.sync()
    await tmux.waitFor(pane, 'Do you want to proceed?')
    sweep()
    const elsewhere = {PATH: tmux.env.PATH, TMUX: `${path.join(dir, 'no-such-socket')},1,0`, TMUX_TMPDIR: path.join(dir, 'no-tmux-here')}
    const blind = (env: Record<string, string | undefined>) => sweepScreens(store, ingester, matcher, {clock: () => clock, env})

    const other = blind(elsewhere)
    const noTmux = blind({PATH: path.join(dir, 'nowhere')})
    const kept = row(CLAUDE_ID).reason
    tmux.tmux('kill-pane', '-t', pane.id)
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && fs.existsSync(`/proc/${pane.pid}`)) await new Promise((r) => setTimeout(r, 50))
    const after = blind(elsewhere)

    expect(other).toMatchObject({removed: 0, tmux: 'no_server'})
    expect(noTmux).toMatchObject({removed: 0, tmux: 'missing'})
    expect(kept).toBe('approval')
    expect(after).toMatchObject({removed: 1})
    expect(screenContributions(store)).toEqual([])
  })

  it('no tmux on PATH: no process is started', () => {
    const stats = sweepScreens(store, ingester, matcher, {clock: () => clock, env: {PATH: path.join(dir, 'nowhere')}})

    expect(stats).toMatchObject({calls: 0, tmux: 'missing'})
  })
})
