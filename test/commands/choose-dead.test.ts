/**
 * An option of a question whose agent no longer runs: no dialog holds a terminal, so the option
 * goes in as the reply that resumes the session headless (the rule cast send uses), from the
 * command and from cast web's answer view (POST /api/choose, the same runner verb).
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {startWeb} from '../web/helpers.js'

const SID = '5e1f0000-0000-4000-8000-00000000b001'

describe('choose on a dead session', () => {
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

  const state = async (): Promise<{state: string; reason: string; id: string}> =>
    json(await runCast(['state', 'show', SID, '--json'], {env}))
  const until = (s: string, r?: string) =>
    waitFor(async () => {
      const st = await state()
      return st.state === s && (r === undefined || st.reason === r) ? st : null
    }, 60_000)

  /** A question open on a session whose process is gone (killed, its card brought back). */
  async function deadQuestion(): Promise<string> {
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'ask me which way', sessionId: SID})
    await until('needs_input', 'question')
    expect((await runCast(['kill', SID, '--grace', '0'], {env})).code).toBe(0)
    expect((await runCast(['undo'], {env})).code).toBe(0)
    await waitFor(() => !server.tmux(['list-panes', '-a', '-F', '#{pane_id}']).split('\n').includes(pane) || null, 30_000).catch(() => null)
    const listed = json(await runCast(['sessions', '--json', '--all'], {env}))
    const row = listed.sessions.find((s: {native_id: string}) => s.native_id === SID)
    expect(row).toMatchObject({live: false, reason: 'question'})
    return row.question?.choices?.[0]?.label ?? row.question?.options?.[0]?.label ?? ''
  }

  it('cast choose sends the option as the reply that resumes it headless', async () => {
    const label = await deadQuestion()
    const r = await runCast(['choose', SID, '1', '--json'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(json(r)).toMatchObject({choice: 1, sent: {route: 'headless'}})
    const sent = json(r).label as string
    if (label) expect(sent).toBe(label)
    await waitFor(() => userTexts(h.home, proj, SID).includes(sent) || null, 60_000)
  })

  it('cast send after a headless resume does not report the stale state it read before', async () => {
    await deadQuestion()
    const r = await runCast(['send', SID, 'Go with A'], {env})
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('It resumes headless')
    expect(r.stdout).not.toContain('needs_input:question')
    await waitFor(() => userTexts(h.home, proj, SID).includes('Go with A') || null, 60_000)
  })

  it("cast web's answer view: POST /api/choose on it answers 200 and resumes it, not 409", async () => {
    await deadQuestion()
    const web = await startWeb(env)
    try {
      const cookie = ((await fetch(web.login, {redirect: 'manual'})).headers.get('set-cookie') ?? '').split(';')[0]!
      const id = (await state()).id ?? json(await runCast(['sessions', '--json', '--all'], {env})).sessions[0].id
      const res = await fetch(`${web.base}/api/choose`, {
        body: JSON.stringify({choice: 1, session: id}),
        headers: {'content-type': 'application/json', cookie, origin: web.base},
        method: 'POST',
      })
      const body = (await res.json()) as {label: string; sent: {route: string}}
      expect(res.status, JSON.stringify(body)).toBe(200)
      expect(body.sent.route).toBe('headless')
      await waitFor(() => userTexts(h.home, proj, SID).includes(body.label) || null, 60_000)
    } finally {
      await web.stop()
    }
  })
})
