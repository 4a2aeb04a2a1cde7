/**
 * Presence-aware paging with a real tmux client: while a client (a real pty, `script`) is
 * attached to the fake agent's pane, `cast presence` says you are at the desk and why, and the
 * notifier holds the phone's page (the desktop backend still shows it); once the client
 * detaches, cast says away and the held page goes out once to the push service.
 */
import {type ChildProcess, spawn} from 'node:child_process'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {saveSubscription} from '../../src/lib/push/files.js'
import {exchangePairCode, newPairCode} from '../../src/lib/home/devices.js'
import {fakeInWindow, makeProject, startTmux, type TmuxServer, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {type PushService, startPushService} from './endpoint.js'

const SID = '5e1f0000-0000-4000-8000-0000000a5502'

describe('paging holds the phone while a tmux client is attached to the agent’s pane', () => {
  let h: TempHome
  let tmux: TmuxServer
  let env: Record<string, string>
  let svc: PushService
  let client: ChildProcess | null = null
  let notifier: ChildProcess | null = null
  let out = ''

  beforeAll(async () => {
    h = makeHome()
    writeFakeConfig(h.castHome)
    svc = await startPushService()
    tmux = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...tmux.env, CAST_PUSH_LOOPBACK_HTTP: '1'}
    const {code} = newPairCode(h.castHome, Date.now())
    const device = exchangePairCode(h.castHome, code, 'phone', Date.now())!.device.id
    saveSubscription(h.castHome, {created_at: new Date().toISOString(), device, ...svc.subscription('/phone')})
  }, 60_000)

  afterAll(async () => {
    notifier?.kill('SIGTERM')
    client?.kill('SIGKILL')
    await svc?.close()
    tmux?.kill()
    h?.cleanup()
  })

  let last: unknown = null
  let rows: unknown = null
  const paging = async () => {
    const r = await runCast(['presence', '--json'], {env})
    last = r.code === 0 ? json(r).paging : r.stderr
    rows = (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).map((x) => [x.native_id, x.pane, x.state])
    return (r.code === 0 ? json(r).paging : {active: false, why: null}) as {active: boolean; why: string | null}
  }

  it('says at the desk while attached, holds the page, and sends it once after the detach', async () => {
    const proj = makeProject(h.dir)
    fakeInWindow(tmux, {cwd: proj, prompt: 'hello', sessionId: SID})
    await waitFor(async () => {
      const s = (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).find((x) => x.native_id === SID)
      return s?.state === 'needs_input' ? s : null
    }, 60_000)
    expect((await paging()).active).toBe(false)

    // A real client on a pty, attached to the agent's window.
    client = spawn('script', ['-qfc', 'tmux attach -t base:1', '/dev/null'], {
      env: {...env, TERM: 'xterm'},
      stdio: ['pipe', 'ignore', 'ignore'],
    })
    const desk = await waitFor(
      async () => {
        const p = await paging()
        return p.active ? p : null
      },
      30_000,
      () =>
        `clients: ${tmux.tmux(['list-clients', '-F', '#{client_activity} #{pane_id} #{client_name}'])}; presence: ${JSON.stringify(last)}; sessions: ${JSON.stringify(rows)}`,
    )
    expect(desk.why).toMatch(/^tmux client .* on %\d+ \(session /)
    const human = await runCast(['presence'], {env})
    expect(human.stdout).toMatch(/^paging: at the desk \(tmux client .*\): the phone is held, the desktop shows$/m)

    notifier = spawn(process.execPath, [BIN, 'notify', '--backend', 'push,stdout', '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    notifier.stdout!.on('data', (c) => (out += String(c)))
    notifier.stderr!.on('data', (c) => (out += String(c)))
    await new Promise((r) => setTimeout(r, 1500))
    tmux.tmux(['send-keys', '-t', 'base:1', 'tool: make deploy', 'Enter'])
    // The notifier saw it and held the phone's page.
    await waitFor(
      () => /phone held|"held":"tmux client/.test(out) || null,
      60_000,
      () => out,
    )
    expect(svc.received).toHaveLength(0)

    client.kill('SIGKILL')
    client = null
    await waitFor(async () => ((await paging()).active ? null : true), 30_000)
    const got = await waitFor(
      () => svc.received[0],
      90_000,
      () => out,
    )
    expect(JSON.parse(got.plaintext).actions.map((a: {action: string}) => a.action)).toEqual(['approve', 'deny'])
    // Once: no second copy of the held page.
    await new Promise((r) => setTimeout(r, 3000))
    expect(svc.received).toHaveLength(1)
  }, 240_000)
})
