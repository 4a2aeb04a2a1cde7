/**
 * The terminal fallback as a user meets it: the built CLI over a temp HOME, a real tmux server,
 * a Codex rollout that cannot show its pending approval, and a pane that does.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {json, killStarted, makeHome, runCast, startCast, type TempHome, waitForWatcher, writeFile} from '../../helpers/cli.js'
import {SCREENS, TmuxServer} from './screen-helpers.js'

const ID = '019dd0b4-7e10-7c22-8a55-91d3f0b2c602'
let h: TempHome
let tmux: TmuxServer
let env: Record<string, string>

beforeEach(() => {
  h = makeHome()
  tmux = new TmuxServer(h.dir, 'e2e')
  env = {...h.env, ...tmux.env}
})
afterEach(() => {
  killStarted()
  tmux.kill()
  h.cleanup()
})

const iso = (ms: number): string => new Date(ms).toISOString()

/** A Codex turn open at an exec call, as Codex leaves it while its approval dialog is up. */
function codexRollout(cwd: string): string {
  const at = Date.now() - 30_000
  const p = path.join(h.home, '.codex', 'sessions', '2026', '11', '29', `rollout-2026-11-29T10-00-00-${ID}.jsonl`)
  const lines = [
    {
      payload: {cli_version: '0.128.0', cwd, id: ID, originator: 'codex_cli_rs', source: 'cli', timestamp: iso(at)},
      timestamp: iso(at),
      type: 'session_meta',
    },
    {payload: {cwd, model: 'gpt-5.5', turn_id: 'turn-1'}, timestamp: iso(at + 1000), type: 'turn_context'},
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

describe('the screen through the CLI (real tmux)', () => {
  it('cast sessions lists the approval the pane shows; cast explain names the screen as its source', async () => {
    const cwd = path.join(h.dir, 'api')
    const pane = tmux.pane('codex', cwd, SCREENS.codexApproval, {hold: codexRollout(cwd)})
    await tmux.waitFor(pane, 'Would you like to run the following command?')

    const list = await runCast(['sessions', '--json'], {env})
    const human = await runCast(['sessions'], {env})
    const explain = await runCast(['explain', ID.slice(0, 8), '--json'], {env})

    expect(list.code).toBe(0)
    expect(json(list).sessions[0]).toMatchObject({agent: 'codex', bucket: 'questions', reason: 'approval', state: 'needs_input'})
    expect(human.stdout).toContain('approve psql -f migrations/0008_uuid.sql?')
    const facts = json(explain).facts as {fact: string; value: unknown; source: unknown}[]
    expect(facts.find((f) => f.fact === 'approval')).toEqual({
      fact: 'approval',
      source: {kind: 'screen', ref: `tmux ${pane.id} (main:0.0)`},
      value: 'psql -f migrations/0008_uuid.sql',
    })
    expect(json(explain).files.map((f: {path: string}) => f.path)).toContain(`screen://tmux${tmux.socket}/${pane.id}`)
  })

  it('screen_patterns in the config teach cast a dialog without a release', async () => {
    const cwd = path.join(h.dir, 'api')
    const pane = tmux.pane('codex', cwd, ['  Sandbox escalation requested', '  [a]pprove  [d]eny'].join('\n'), {hold: codexRollout(cwd)})
    await tmux.waitFor(pane, 'Sandbox escalation requested')
    const before = json(await runCast(['sessions', '--json'], {env})).sessions[0]

    writeFile(
      path.join(h.castHome, 'config.json'),
      JSON.stringify({screen_patterns: {codex: {approval: [String.raw`^\s*(Sandbox escalation requested)`]}}}),
    )
    const after = json(await runCast(['sessions', '--json'], {env})).sessions[0]

    expect(before).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(after).toMatchObject({reason: 'approval', state: 'needs_input'})
  })

  it('the live ingester sweeps on its own: a dialog appearing in the pane is one transition in the watch stream', async () => {
    const cwd = path.join(h.dir, 'api')
    const pane = tmux.pane('codex', cwd, SCREENS.codexBusy, {hold: codexRollout(cwd)})
    await tmux.waitFor(pane, 'esc to interrupt')
    await runCast(['sessions'], {env})
    const w = startCast(['sessions', '-w', '--json'], env)
    await waitForWatcher(h.castHome)

    pane.show(SCREENS.codexApproval)
    const line = JSON.parse(await w.nextLine(15_000))

    expect(line).toMatchObject({agent: 'codex', event: 'transition', from: 'working', reason: 'approval', to: 'needs_input'})
    await w.stop()
  })

  it('without a tmux server nothing is read and nothing fails', async () => {
    const cwd = path.join(h.dir, 'api')
    codexRollout(cwd)
    fs.mkdirSync(cwd, {recursive: true})

    const r = await runCast(['sessions', '--json'], {env})

    expect(r.code).toBe(0)
    // No screen to read, and no process holds the rollout of the open turn: Codex 0.169 reads dead.
    expect(json(r).sessions[0]).toMatchObject({agent: 'codex', reason: 'dead', state: 'needs_input'})
  })
})
