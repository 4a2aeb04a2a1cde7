/**
 * `cast spawn` against a real tmux server, with the config pointing Claude Code at the fake agent.
 */
import fs from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

describe('cast spawn', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '200'})
    env = {...h.env, ...server.env}
  })

  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  it('starts the agent in a new tmux window with a preassigned id and prints the session', async () => {
    const r = await runCommand(['spawn', '--agent', 'claude', '--label', 'fleet', '--cwd', proj, 'Write the parser', '--json'], {env})

    expect(r.code).toBe(0)
    const s = json(r)
    expect(s).toMatchObject({agent: 'claude_code', cwd: proj, labels: ['fleet'], live: true, title: 'Write the parser'})
    expect(s.native_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(server.tmux(['list-panes', '-a', '-F', '#{session_name} #{window_name} #{pane_pid}'])).toContain(`cast fleet ${s.pid}`)
    expect(userTexts(h.home, proj, s.native_id)).toEqual(['Write the parser'])
  })

  it('prints only the id on stdout without --json, and the agent gets CAST_SESSION', async () => {
    const r = await runCommand(['spawn', '--agent', 'claude', '--cwd', proj, 'Start'], {env})
    const id = r.stdout.trim()
    await waitFor(async () => json(await runCommand(['state', 'show', id, '--json'], {env})).state === 'needs_input' || null)

    // The agent's own `cast state` finds its session from CAST_SESSION, which spawn set in its window.
    const pane = server
      .tmux(['list-panes', '-a', '-F', '#{pane_id} #{window_name}'])
      .split('\n')
      .find((l) => l.endsWith(' claude'))!
      .split(' ')[0]!
    server.tmux(['send-keys', '-t', pane, '-l', '--', `!${process.execPath} ${BIN} state --status done "spawned and done"`])
    server.tmux(['send-keys', '-t', pane, 'Enter'])

    expect(r.code).toBe(0)
    expect(id).toMatch(/^[a-z2-7]{26}$/)
    expect(r.stderr).toContain('spawned')
    const show = await waitFor(async () => {
      const j = json(await runCommand(['state', 'show', id, '--json'], {env}))
      return j.state_line ? j : null
    })
    expect(show.state_line.text).toBe('spawned and done')
    expect(show.state).toBe('done')
  })

  it('runs headless with --headless, output in $CAST_HOME/runs', async () => {
    const r = await runCommand(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, 'Summarise the TODOs', '--json'], {env})

    expect(r.code).toBe(0)
    const s = json(r)
    expect(server.tmux(['list-panes', '-a', '-F', '#{session_name}'])).not.toContain('cast')
    const runs = fs.readdirSync(`${h.castHome}/runs`)
    expect(runs.some((f) => f.startsWith('spawn-'))).toBe(true)
    await waitFor(async () => json(await runCommand(['state', 'show', s.id, '--json'], {env})).reason === 'settled' || null)
  })

  it('links a child to its parent and enforces the tree caps (depth 3, 5 sessions, finished ones count)', async () => {
    const spawn = async (parent: string | null, prompt: string) =>
      runCommand(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, ...(parent ? ['--parent', parent] : []), prompt, '--json'], {
        env,
      })
    const root = json(await spawn(null, 'root')).id as string
    const c1 = json(await spawn(root, 'child 1'))
    const c2 = json(await spawn(c1.id, 'child 2'))
    const c3 = json(await spawn(c2.id, 'child 3'))

    const tooDeep = await spawn(c3.id, 'child 4')
    await spawn(root, 'child 5')
    await spawn(c1.id, 'child 6')
    const full = await spawn(root, 'child 7')

    expect(c1.parent_id).toBe(root)
    expect(c3.parent_id).toBe(c2.id)
    expect(tooDeep.code).toBe(5)
    expect(json(tooDeep).error.message).toContain('at most 3 levels deep')
    expect(full.code).toBe(5)
    expect(json(full).error.message).toContain('already holds 5 spawned sessions')
    expect(json(await runCommand(['sessions', '--json'], {env})).counts.folded).toBe(5)
  })

  it('fails with a clear message when the agent command cannot start, and gives the slot back', async () => {
    const root = json(await runCommand(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, 'root', '--json'], {env})).id as string
    writeFakeConfig(h.castHome, {agents: {claude: {headless: ['/nonexistent/claude-bin', '{prompt}']}}})

    // Five spawned CLIs at once: the slots are claimed concurrently, so these stay separate processes.
    const failed = await Promise.all(
      Array.from({length: 5}, () => runCast(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, '--parent', root, 'Start'], {env})),
    )
    writeFakeConfig(h.castHome)
    const after = await runCommand(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, '--parent', root, 'Start'], {env})

    for (const r of failed) {
      expect(r.code).toBe(1)
      expect(r.stderr).toContain('/nonexistent/claude-bin')
    }

    expect(after.code).toBe(0)
  })

  it('ties the tmux pane it opened: pane in its JSON and in cast sessions --json', async () => {
    const r = await runCommand(['spawn', '--agent', 'claude', '--cwd', proj, 'Write the lexer', '--json'], {env})

    expect(r.code, r.stderr).toBe(0)
    const s = json(r)
    const pane = server
      .tmux(['list-panes', '-a', '-F', '#{pane_id} #{pane_pid}'])
      .split('\n')
      .find((l) => l.endsWith(` ${s.pid}`))!
      .split(' ')[0]
    expect(pane).toMatch(/^%\d+$/)
    expect(s.pane).toBe(pane)
    const listed = json(await runCommand(['sessions', '--json'], {env})).sessions.find((x: {id: string}) => x.id === s.id)
    expect(listed.pane).toBe(pane)
  })

  it('says a missing agent CLI as headless does ("command not found"), in tmux too, and starts no tmux server', async () => {
    const missing = 'claude-not-installed'
    writeFakeConfig(h.castHome, {
      agents: {claude: {headless: [missing, '-p', '--', '{prompt}'], interactive: [missing, '--', '{prompt}']}},
    })
    const fresh = fs.mkdtempSync('/tmp/ctx-')
    try {
      const inTmux = await runCast(['spawn', '--agent', 'claude', '--cwd', proj, 'Start'], {env: {...h.env, TMUX_TMPDIR: fresh}})
      const headless = await runCast(['spawn', '--agent', 'claude', '--headless', '--cwd', proj, 'Start'], {env})

      for (const r of [inTmux, headless]) {
        expect(r.code).toBe(1)
        expect(r.stderr).toContain(`${missing}: command not found`)
        expect(r.stderr).not.toContain('exited before its session appeared')
      }

      expect(fs.readdirSync(fresh)).toEqual([])
    } finally {
      fs.rmSync(fresh, {force: true, recursive: true})
    }
  })

  it('rejects an unknown agent and a missing directory with exit 2', async () => {
    const agent = await runCommand(['spawn', '--agent', 'gpt', 'Start'], {env})
    const dir = await runCommand(['spawn', '--agent', 'claude', '--cwd', `${h.dir}/nope`, 'Start'], {env})

    expect(agent.code).toBe(2)
    expect(dir.code).toBe(2)
  })
})
