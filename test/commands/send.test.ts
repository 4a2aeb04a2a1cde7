/**
 * `cast send` against a real tmux server and the fake agent reading its terminal.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startFake, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const SID = '5e1f0000-0000-4000-8000-00000000b001'

describe('cast send', () => {
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

  const state = async (): Promise<{state: string; reason: string}> => json(await runCast(['state', 'show', SID, '--json'], {env}))
  const until = (s: string, r?: string) =>
    waitFor(async () => {
      const st = await state()
      return st.state === s && (r === undefined || st.reason === r) ? st : null
    })

  it("types the message into the agent's tmux pane literally, then Enter", async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'Start the parser', sessionId: SID})
    await until('needs_input', 'settled')
    const message = `Next: $(rm -rf ~) \`id\` && echo "hi" 'q' C-c Enter #{pane_id} ; end;;`

    const r = await runCast(['send', SID.slice(0, 8), message, '--json'], {env})

    expect(r.code).toBe(0)
    expect(json(r)).toMatchObject({pane, route: 'tmux'})
    expect(json(r).session.reason).toBe('turn_pending')
    await waitFor(
      () => userTexts(h.home, proj, SID).includes(message) || null,
      20_000,
      () => JSON.stringify(userTexts(h.home, proj, SID)),
    )
    expect(userTexts(h.home, proj, SID)).toEqual(['Start the parser', message])
    await until('needs_input', 'settled')
  })

  it('sends several lines as one paste', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input', 'settled')

    const r = await runCast(['send', SID, 'first line\nsecond line'], {env})

    expect(r.code).toBe(0)
    // The fake reads its terminal line by line: each line arrives, in order.
    await waitFor(() => userTexts(h.home, proj, SID).length === 3 || null)
    expect(userTexts(h.home, proj, SID)).toEqual(['Start', 'first line', 'second line'])
  })

  it('with --if sends nothing and exits 5 when the state differs at that moment', async () => {
    fakeInWindow(server, {cwd: proj, env: {FAKE_DELAY_MS: '8000'}, prompt: 'A long first step', sessionId: SID})
    await until('working')

    const refused = await runCast(['send', SID, 'Are you done?', '--if', 'needs_input'], {env})
    const refusedJson = await runCast(['send', SID, 'Are you done?', '--if', 'needs_input,done', '--json'], {env})

    expect(refused.code).toBe(5)
    expect(refused.stderr).toContain('nothing sent')
    expect(refusedJson.code).toBe(5)
    expect(json(refusedJson).error.exit_code).toBe(5)
    await until('needs_input', 'settled')
    const sent = await runCast(['send', SID, 'Next step', '--if', 'needs_input'], {env})
    expect(sent.code).toBe(0)
    await waitFor(() => userTexts(h.home, proj, SID).includes('Next step') || null)
    expect(userTexts(h.home, proj, SID)).toEqual(['A long first step', 'Next step'])
  })

  it('refuses an unknown --if state with exit 2', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input')

    const r = await runCast(['send', SID, 'x', '--if', 'sleeping'], {env})

    expect(r.code).toBe(2)
  })

  it("resumes a session with no live process headless, with the agent's own resume command", async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input', 'settled')
    await runCast(['send', SID, 'bye'], {env})
    await waitFor(async () => {
      const s = json(await runCast(['sessions', '--json'], {env})).sessions[0]
      return s.live === false && s.reason === 'settled' ? s : null
    })

    const r = await runCast(['send', SID, 'Pick it up again', '--json'], {env})

    expect(r.code).toBe(0)
    expect(json(r).route).toBe('headless')
    expect(json(r).log).toContain('/runs/')
    await waitFor(() => userTexts(h.home, proj, SID).includes('Pick it up again') || null)
    await until('needs_input', 'settled')
  })

  it('is new activity: it clears a kill and expires a verdict', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input', 'settled')
    expect((await runCast(['mark', 'done', SID], {env})).code).toBe(0)
    expect(await state()).toMatchObject({reason: 'user_verdict', state: 'done'})
    await runCast(['send', SID, 'One more step'], {env})
    await until('needs_input', 'settled')

    expect((await runCast(['kill', SID, '--grace', '0'], {env})).code).toBe(0)
    expect(await state()).toMatchObject({reason: 'killed', state: 'idle'})
    const r = await runCast(['send', SID, 'Come back', '--json'], {env})

    expect(r.code).toBe(0)
    expect(json(r).route).toBe('headless')
    expect(json(r).session.reason).not.toBe('killed')
    await until('needs_input', 'settled')
    expect(userTexts(h.home, proj, SID)).toEqual(['Start', 'One more step', 'Come back'])
  })

  it('answers the question of a killed session headless: the dialog died with its process (cast undo promises cast send restarts it)', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'ask me which way', sessionId: SID})
    await until('needs_input', 'question')
    expect((await runCast(['kill', SID, '--grace', '0'], {env})).code).toBe(0)
    const undone = await runCast(['undo'], {env})
    expect(undone.stdout).toContain('cast send restarts it')

    const r = await runCast(['send', SID, 'Go with A', '--json'], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(json(r).route).toBe('headless')
    await waitFor(() => userTexts(h.home, proj, SID).includes('Go with A') || null)
    await until('needs_input', 'settled')
  })

  it('refuses (exit 5) with a clear message when the agent is alive outside tmux, and does not resume it headless', async () => {
    const fake = startFake({cwd: proj, env: h.env, prompt: 'Start', sessionId: SID})
    try {
      await fake.waitForOutput(/< Done: Start/)

      const r = await runCast(['send', SID, 'hello'], {env})

      expect(r.code).toBe(5)
      expect(r.stderr).toContain('not in a tmux pane')
      expect(r.stderr).toContain('fork the conversation')
      expect(fs.existsSync(path.join(h.castHome, 'runs'))).toBe(false)
      expect(userTexts(h.home, proj, SID)).toEqual(['Start'])
    } finally {
      await fake.stop()
    }
  })

  it('never types into an open permission prompt: --if needs_input exits 5 naming cast approve/deny, and the tool does not run', async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'tool: rm -rf build', sessionId: SID})
    await until('needs_input', 'approval')
    await waitFor(() => /Do you want to proceed\?/.test(server.tmux(['capture-pane', '-p', '-t', pane])) || null)

    const r = await runCast(['send', SID, 'Next step', '--if', 'needs_input'], {env})

    expect(r.code).toBe(5)
    expect(r.stderr).toContain('has a permission prompt open')
    expect(r.stderr).toMatch(/Answer it: cast approve \w{7}, or cast deny \w{7}/)
    // The fake approves on Enter, as Claude Code does: had anything been typed, the tool would have run.
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(userTexts(h.home, proj, SID)).toEqual(['tool: rm -rf build'])
    expect(server.tmux(['capture-pane', '-p', '-t', pane])).toMatch(/Do you want to proceed\?/)
  })

  it('captures the screen right before typing: a dialog only the screen shows is refused too', async () => {
    const pane = fakeInWindow(server, {cwd: proj, env: {FAKE_SILENT_DIALOG: '1'}, prompt: 'tool: make deploy', sessionId: SID})
    await waitFor(() => /Do you want to proceed\?/.test(server.tmux(['capture-pane', '-p', '-t', pane])) || null)

    const r = await runCast(['send', SID, 'Carry on'], {env})

    expect(r.code).toBe(5)
    expect(r.stderr).toMatch(/permission prompt open \(make deploy; from (screen tmux|screen) /)
    await new Promise((resolve) => setTimeout(resolve, 800))
    expect(userTexts(h.home, proj, SID)).toEqual(['tool: make deploy'])
  })

  it('--if STATE:REASON checks the reason too', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input', 'settled')

    const wrong = await runCast(['send', SID, 'x', '--if', 'needs_input:error'], {env})
    const bad = await runCast(['send', SID, 'x', '--if', 'needs_input:'], {env})
    const right = await runCast(['send', SID, 'Next', '--if', 'needs_input:settled,done'], {env})

    expect(wrong.code).toBe(5)
    expect(wrong.stderr).toContain('not needs_input:error: nothing sent')
    expect(bad.code).toBe(2)
    expect(right.code, right.stderr).toBe(0)
    await waitFor(() => userTexts(h.home, proj, SID).includes('Next') || null)
    expect(userTexts(h.home, proj, SID)).toEqual(['Start', 'Next'])
  })

  it('exits 3 for an unknown session', async () => {
    const r = await runCast(['send', 'zzzzzzz', 'hello'], {env})

    expect(r.code).toBe(3)
  })
})
