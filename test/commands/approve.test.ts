/**
 * `cast approve` / `cast deny` against a real tmux server and the fake agent's permission dialog
 * (Claude Code's layout and keys: 1 / Enter approve, 2 always, Esc deny). The tool runs only when
 * approved: its tool_result is in the transcript.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000a001'

describe('cast approve / cast deny', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...server.env}
  })

  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  const state = async (): Promise<{state: string; reason: string}> => json(await runCommand(['state', 'show', SID, '--json'], {env}))
  const until = (s: string, r?: string) =>
    waitFor(
      async () => {
        const st = await state()
        return st.state === s && (r === undefined || st.reason === r) ? st : null
      },
      45_000,
      () => `never ${s}:${r}`,
    )
  const screen = (pane: string): string => server.tmux(['capture-pane', '-p', '-t', pane])
  const dialogOn = (pane: string) =>
    waitFor(
      () => /Do you want to proceed\?/.test(screen(pane)) || null,
      20_000,
      () => screen(pane),
    )

  it("approve answers the open permission prompt with the agent's key, the tool runs, the dialog is gone", async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'tool: make build', sessionId: SID})
    await until('needs_input', 'approval')
    await dialogOn(pane)

    const r = await runCommand(['approve', SID.slice(0, 8), '--json'], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({
      action: 'approve',
      closed: true,
      dialog: 'make build',
      keys: ['1'],
      pane,
      route: 'tmux',
      verb: 'approve',
    })
    expect(screen(pane)).not.toMatch(/Do you want to proceed/)
    await waitFor(() => userTexts(h.home, proj, SID).includes('[answer] ran make build') || null)
    await until('needs_input', 'settled')
  })

  it('approve --always picks the "always allow" choice', async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'tool: npm test', sessionId: SID})
    await until('needs_input', 'approval')
    await dialogOn(pane)

    const r = await runCommand(['approve', SID, '--always'], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /^Approved \(always\) "npm test" in \w{7} \(tmux %\d+, base:\d+\.0; keys 2\): the dialog closed after \d+ ms\.\n$/,
    )
    await waitFor(
      () => /always allowed/.test(screen(pane)) || null,
      20_000,
      () => screen(pane),
    )
  })

  it('deny answers no: the tool does not run', async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'tool: rm -rf build', sessionId: SID})
    await until('needs_input', 'approval')
    await dialogOn(pane)

    const r = await runCommand(['deny', SID, '--json'], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({action: 'deny', closed: true, dialog: 'rm -rf build', verb: 'deny'})
    await waitFor(() => userTexts(h.home, proj, SID).includes('[answer] User rejected tool use') || null)
    expect(userTexts(h.home, proj, SID).some((t) => t.startsWith('[answer] ran'))).toBe(false)
  })

  it('exits 5 and types nothing when no permission prompt is open', async () => {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await until('needs_input', 'settled')
    const before = userTexts(h.home, proj, SID)

    const approve = await runCommand(['approve', SID], {env})
    const deny = await runCommand(['deny', SID, '--json'], {env})

    expect(approve.code).toBe(5)
    expect(approve.stderr).toMatch(/No permission prompt is open on session \w{7}'s screen, tmux %\d+ .*Nothing sent\./)
    expect(deny.code).toBe(5)
    expect(json(deny).error.exit_code).toBe(5)
    // Had a key gone in, the fake would have taken "1" as the start of a turn.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(userTexts(h.home, proj, SID)).toEqual(before)
    expect(screen(pane)).not.toMatch(/> 1/)
  })

  it('exits 5 on a question dialog: it is not a permission prompt', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'ask which database', sessionId: SID})
    await until('needs_input', 'question')

    const r = await runCommand(['approve', SID], {env})

    expect(r.code).toBe(5)
    expect(r.stderr).toContain('has a question open')
    expect(userTexts(h.home, proj, SID)).toEqual(['ask which database'])
  })

  it('answers a dialog only the screen shows (the registry does not say so)', async () => {
    const pane = fakeInWindow(server, {cwd: proj, env: {FAKE_SILENT_DIALOG: '1'}, prompt: 'tool: make deploy', sessionId: SID})
    await dialogOn(pane)

    const r = await runCommand(['approve', SID, '--json'], {env})

    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({closed: true, dialog: 'make deploy', keys: ['1']})
    await waitFor(() => userTexts(h.home, proj, SID).includes('[answer] ran make deploy') || null)
  })

  it("exits 5 when the session's process is in no tmux pane", async () => {
    const r = await runCommand(['approve', 'zzzzzzzz'], {env})
    expect(r.code).toBe(3)
    fakeInWindow(server, {cwd: proj, prompt: 'tool: make build', sessionId: SID})
    await until('needs_input', 'approval')
    // The same session, but cast looks at no tmux server: the pane cannot be tied to it.
    const elsewhere = {...env, TMUX_TMPDIR: h.dir}

    const refused = await runCommand(['approve', SID], {env: elsewhere})

    expect(refused.code).toBe(5)
    expect(refused.stderr).toMatch(
      /has a permission prompt open .*, but cast cannot answer it: the session .*not in a tmux pane.*\. Nothing sent\./,
    )
    expect(refused.stderr).not.toMatch(/Session \w+: session/)
    expect(userTexts(h.home, proj, SID)).toEqual(['tool: make build'])
  })
})
