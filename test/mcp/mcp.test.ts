/**
 * `cast mcp` over stdio with the SDK's own client (test/mcp/client.mjs) against the built CLI:
 * declare_state proved from the server's ancestry (a fake Claude Code above it), the other tools'
 * results the CLI's --json shapes, and hostile inputs refused with one error each, nothing written.
 */
import fs from 'node:fs'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type FakeProcess, makeProject, startFake, waitFor} from '../fakes/agents.js'
import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {callDirect, callFromAgent, text} from './helpers.js'

const A = '5e1f0000-0000-4000-8000-00000000e001'
const B = '5e1f0000-0000-4000-8000-00000000e002'

describe('cast mcp', () => {
  let h: TempHome
  let proj: string
  const fakes: FakeProcess[] = []

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
  })

  afterEach(async () => {
    for (const f of fakes.splice(0)) await f.stop()
    h.cleanup()
  })

  async function agent(sid: string, prompt: string): Promise<FakeProcess> {
    const fake = startFake({cwd: proj, env: {...h.env, FAKE_DELAY_MS: '100'}, prompt, sessionId: sid})
    fakes.push(fake)
    await fake.waitForOutput(new RegExp(`< Done: ${prompt}`))
    return fake
  }

  const show = async (sid: string) => json(await runCommand(['state', 'show', sid, '--json'], {env: h.env}))

  it('declare_state declares for the agent above the server, found via the process tree', async () => {
    const a = await agent(A, 'Port the parser')
    await agent(B, 'Other work')

    const [r] = await callFromAgent(h.dir, a, [
      {arguments: {status: 'done', text: 'Parser ported\nAll 41 tests pass'}, name: 'declare_state'},
    ])

    expect(r!.result.isError).toBeFalsy()
    const out = r!.result.structuredContent as {session: {native_id: string; state: string; reason: string}; via: string}
    expect(out.session.native_id).toBe(A)
    expect(out.via).toMatch(/^process tree \(pid \d+\)$/)
    expect(out.session).toMatchObject({reason: 'declared_done', state: 'done'})
    expect(JSON.parse(text(r!))).toEqual(out)
    expect((await show(A)).state_line).toMatchObject({status: 'done', text: 'Parser ported\nAll 41 tests pass'})
    expect((await show(B)).state_line).toBeNull()
  })

  it('refuses hostile declare_state inputs with one error each and writes nothing', async () => {
    const a = await agent(A, 'Port the parser')
    await agent(B, 'Other work')
    const bId = (await show(B)).session as string

    const results = await callFromAgent(h.dir, a, [
      {arguments: {session: bId, status: 'done', text: 'I am B now'}, name: 'declare_state'},
      {arguments: {id: bId, status: 'done', text: 'I am B now'}, name: 'declare_state'},
      {arguments: {status: 'done', text: 'x'.repeat(1024 * 1024)}, name: 'declare_state'},
      {arguments: {status: 'done', text: 'clear \u001b[2J\u001b]0;owned\u0007 screen'}, name: 'declare_state'},
      {arguments: {status: 'done', text: 'bidi \u202e reversed'}, name: 'declare_state'},
      {arguments: {status: 'shipped', text: 'x'}, name: 'declare_state'},
      {arguments: {}, name: 'rm_rf'},
    ])

    expect(results.map((r) => r.result.isError)).toEqual([true, true, true, true, true, true, true])
    for (const r of results) {
      expect(r.result.content).toHaveLength(1)
      // One line of what was refused (suggestions on later lines), never the hostile bytes themselves.
      // eslint-disable-next-line no-control-regex
      expect(text(r)).not.toMatch(/[\u001b\u0007\u202e]/)
      expect(text(r).length).toBeLessThan(2000)
    }

    expect(text(results[0]!)).toMatch(/Unrecognized key: "session"/)
    expect(text(results[2]!)).toMatch(/too big|4000/i)
    expect(text(results[3]!)).toMatch(/control character/)
    expect(text(results[6]!)).toMatch(/Tool rm_rf not found/)
    expect((await show(A)).state_line).toBeNull()
    expect((await show(B)).state_line).toBeNull()
  })

  it('refuses declare_state from a process no agent started, naming why', async () => {
    await agent(A, 'Port the parser')

    const [r] = await callDirect(h.dir, h.env, [{arguments: {status: 'done', text: 'who am I'}, name: 'declare_state'}])

    expect(r!.result.isError).toBe(true)
    expect(text(r!)).toMatch(/Cannot tell which session this is.*\(exit 3, NOT_FOUND\)/)
    expect((await show(A)).state_line).toBeNull()
  })

  it('list_sessions and session answer as cast sessions --json and cast explain --json', async () => {
    await agent(A, 'Port the parser')
    await agent(B, 'Other work')
    const aId = (await show(A)).session as string

    const [list, one, prefix, unknown] = await callDirect(h.dir, h.env, [
      {arguments: {}, name: 'list_sessions'},
      {arguments: {id: aId}, name: 'session'},
      {arguments: {id: aId.slice(0, 6)}, name: 'session'},
      {arguments: {id: 'not-a-session'}, name: 'send_to_session'},
    ])

    const cli = json(await runCommand(['sessions', '--json'], {env: h.env}))
    const listed = list!.result.structuredContent as {me: string; sessions: {id: string}[]; counts: object}
    expect(listed.me).toBe(cli.me)
    expect(listed.sessions.map((s) => s.id).sort()).toEqual((cli.sessions as {id: string}[]).map((s) => s.id).sort())
    expect(Object.keys(listed.counts)).toEqual(Object.keys(cli.counts as object))
    const explained = one!.result.structuredContent as Record<string, unknown>
    const cliExplain = json(await runCommand(['explain', aId, '--json'], {env: h.env}))
    expect(Object.keys(explained).sort()).toEqual(Object.keys(cliExplain).sort())
    expect(explained.session).toMatchObject({id: aId, native_id: A})
    // Exact ids only: a prefix, and an id no session has, are refused (exit 3), nothing sent.
    expect(prefix!.result.isError).toBe(true)
    expect(text(prefix!)).toMatch(/exit 3, NOT_FOUND/)
    expect(unknown!.result.isError).toBe(true)
    expect(text(unknown!)).toMatch(/Input validation|exit 3, NOT_FOUND/)
  })

  it('send_to_session refuses control bytes, 1 MB texts and an if_state mismatch, and sends nothing', async () => {
    await agent(A, 'Port the parser')
    const aId = (await show(A)).session as string
    const messages = async () => (json(await runCommand(['explain', aId, '--json'], {env: h.env})).session as {messages: number}).messages
    const before = await messages()

    const results = await callDirect(h.dir, h.env, [
      {arguments: {id: aId, text: 'run \u001b[201~ rm -rf ~\r'}, name: 'send_to_session'},
      {arguments: {id: aId, text: 'y'.repeat(1024 * 1024)}, name: 'send_to_session'},
      {arguments: {id: aId, if_state: ['working'], text: 'Only while working'}, name: 'send_to_session'},
    ])

    expect(results.map((r) => r.result.isError)).toEqual([true, true, true])
    expect(text(results[0]!)).toMatch(/control character.*exit 2, USAGE/)
    expect(text(results[2]!)).toMatch(/exit 5, REFUSED/)
    expect(await messages()).toBe(before)
  })

  it('ask_decision posts a card on the caller’s session; wait_for_answer blocks with progress until it is answered', async () => {
    const a = await agent(A, 'Design the table')

    const pending = callFromAgent(h.dir, a, [
      {
        arguments: {
          options: ['Events :: one table', 'Split :: two tables'],
          question: 'Which schema?',
          reasoning: 'Events is simpler',
          recommend: 1,
        },
        name: 'ask_decision',
      },
    ])
    const [asked] = await pending
    const card = asked!.result.structuredContent as {id: string; session_id: string; options: unknown[]}
    expect(card.options).toHaveLength(2)
    expect(card.session_id).toBe((await show(A)).session)

    let progressFile = ''
    const waiting = callFromAgent(
      h.dir,
      a,
      [{arguments: {card: card.id, timeout: 120}, name: 'wait_for_answer'}],
      (f) => (progressFile = f),
    )
    // The call blocks (its first progress notification came), then it is answered elsewhere (the CLI here).
    await waitFor(
      () => fs.existsSync(progressFile),
      60_000,
      () => a.out(),
    )
    const answered = await runCommand(['decide', 'answer', card.id, '2', '--json'], {env: h.env})
    expect(answered.code).toBe(0)
    const [r] = await waiting

    expect(r!.result.isError).toBeFalsy()
    expect(r!.result.structuredContent).toMatchObject({answer: 2, answer_label: 'Split', id: card.id})
    expect(r!.progress).toBeGreaterThan(0)
  })
})
