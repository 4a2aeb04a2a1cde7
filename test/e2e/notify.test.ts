/**
 * cast notify against a real D-Bus session bus: the test starts its own dbus-daemon and a
 * notification server (python3-dbus) that records every org.freedesktop.Notifications.Notify it
 * receives; cast notify reaches it through notify-send, as on a desktop.
 */
import {spawnSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, afterEach, beforeAll, beforeEach, describe, expect, it} from 'vitest'

import {
  claudeLines,
  claudeTranscriptPath,
  HOOK_BIN,
  killStarted,
  makeHome,
  runCast,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {type Bus, HAVE_BUS, startBus} from './fixtures/bus.js'

const FIGURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'conformance', '.results', 'paging.figures.jsonl')

let bus: Bus | null = null
let h: TempHome

beforeAll(async () => {
  if (HAVE_BUS) bus = await startBus()
}, 60_000)

afterAll(() => bus?.stop())

beforeEach(() => {
  h = makeHome()
  h.env.DBUS_SESSION_BUS_ADDRESS = bus?.address ?? ''
  bus?.clear()
})
afterEach(() => {
  killStarted()
  h.cleanup()
})

const notes = () => bus!.notes()
const waitNotes = (n: number) => bus!.waitNotes(n)

const CWD = '/src/app'
const sid = (n: number): string => `eeeeeeee-1111-4222-8333-${String(n).padStart(12, '0')}`
const file = (s: string): string => claudeTranscriptPath(h.home, CWD, s)
const startSession = (s: string, prompt: string): void =>
  writeFile(file(s), claudeLines({at: new Date(Date.now() - 5000), cwd: CWD, prompt, sessionId: s, settled: false}))
const ask = (s: string, question: string): void => {
  fs.appendFileSync(
    file(s),
    JSON.stringify({
      cwd: CWD,
      message: {
        content: [{id: `toolu_${s.slice(-4)}`, input: {questions: [{question}]}, name: 'AskUserQuestion', type: 'tool_use'}],
        id: `msg_${s.slice(-4)}`,
        model: 'claude-opus-4',
        role: 'assistant',
        type: 'message',
      },
      sessionId: s,
      timestamp: new Date().toISOString(),
      type: 'assistant',
      uuid: `aq${s.slice(-4)}`,
    }) + '\n',
  )
}

const permission = (s: string, command: string): number => {
  const payload = JSON.stringify({
    cwd: CWD,
    hook_event_name: 'PermissionRequest',
    session_id: s,
    tool_input: {command},
    tool_name: 'Bash',
    transcript_path: file(s),
  })
  const at = Date.now()
  const r = spawnSync(HOOK_BIN, ['claude_code'], {env: h.env, input: payload})
  expect(r.status).toBe(0)
  return at
}

function figure(scenario: string, f: Record<string, number | string>): void {
  fs.mkdirSync(path.dirname(FIGURES), {recursive: true})
  fs.appendFileSync(FIGURES, JSON.stringify({at: new Date().toISOString(), scenario, ...f}) + '\n')
}

async function notifier(extra: string[] = []): Promise<ReturnType<typeof startCast>> {
  const n = startCast(['notify', '--json', '--backend', 'freedesktop', ...extra], h.env)
  await waitForWatcher(h.castHome)
  return n
}

// Each page goes through notify-send or gdbus under a 5–10 s timeout on a bus a Python server
// answers: on a loaded 2-core CI machine one delivery in several hundred runs was lost that way
// (a notification missing after 20 s, the same case passing alone). A second attempt covers that
// and still fails on any behaviour that is wrong every time.
describe.skipIf(!HAVE_BUS)('cast notify on a real D-Bus session bus', {retry: 1}, () => {
  it('an approval: one notification on the bus (delay recorded), with the sentence, the title and the ask', async () => {
    startSession(sid(1), 'Deploy the site')
    await runCast(['sessions'], {env: h.env})
    const n = await notifier()

    const at = permission(sid(1), 'rm -rf build')
    const [got] = await waitNotes(1)
    const line = JSON.parse(await n.nextLine())
    const latency = got!.received_at - at
    figure('approval', {ms_to_bus: Math.round(latency)})

    expect(got).toMatchObject({app_name: 'cast', summary: 'Claude is waiting for approval', urgency: 1})
    expect(got!.body.split('\n')[0]).toBe('Deploy the site')
    expect(got!.body.split('\n')[1]).toBe('Approve Bash?')
    expect(line).toMatchObject({
      delivered: [{backend: 'freedesktop', ok: true}],
      kind: 'approval',
      summary: 'Claude is waiting for approval',
    })
    // Deduped: the same prompt again in the same turn pages nobody.
    permission(sid(1), 'rm -rf build')
    await new Promise((r) => setTimeout(r, 1500))
    expect(notes()).toHaveLength(1)
    expect(await n.stop()).toBe(0)
  })

  it('a burst of five questions: one grouped notification naming the shared reason', async () => {
    for (let i = 1; i <= 5; i++) startSession(sid(10 + i), `Task ${i}`)
    await runCast(['sessions'], {env: h.env})
    const n = await notifier()

    for (let i = 1; i <= 5; i++) ask(sid(10 + i), `Which database for task ${i}?`)
    const [got] = await waitNotes(1)
    await new Promise((r) => setTimeout(r, 1500))
    figure('burst_of_five', {notifications: notes().length})

    expect(notes()).toHaveLength(1)
    expect(got!.summary).toBe('5 agents asked a question')
    expect(got!.body.split('\n').sort()).toEqual([1, 2, 3, 4, 5].map((i) => `Claude · Task ${i}: Which database for task ${i}?`))
    await n.stop()
  })

  it('a mixed burst says "need you"; stashed-hidden, snoozed and others\' sessions stay silent', async () => {
    for (const i of [21, 22, 23, 24, 25]) startSession(sid(i), `Job ${i}`)
    await runCast(['sessions'], {env: h.env})
    expect((await runCast(['stash', '--hide', sid(23)], {env: h.env})).code).toBe(0)
    expect((await runCast(['snooze', sid(24), '--for', '2h'], {env: h.env})).code).toBe(0)
    expect((await runCast(['own', sid(25), 'bob@example.com'], {env: h.env})).code).toBe(0)
    const n = await notifier()

    ask(sid(21), 'Ship it?')
    permission(sid(22), 'npm publish')
    // A hidden stash wakes only on an ask: keep it out with a plain settle, not an ask.
    fs.appendFileSync(
      file(sid(23)),
      JSON.stringify({
        cwd: CWD,
        message: {
          content: [{text: 'Done.', type: 'text'}],
          id: 'msg_s23',
          model: 'claude-opus-4',
          role: 'assistant',
          stop_reason: 'end_turn',
          type: 'message',
        },
        sessionId: sid(23),
        timestamp: new Date().toISOString(),
        type: 'assistant',
        uuid: 'a23',
      }) + '\n',
    )
    ask(sid(24), 'Snoozed ask?')
    ask(sid(25), "Bob's ask?")
    const [got] = await waitNotes(1)
    await new Promise((r) => setTimeout(r, 1500))

    expect(notes()).toHaveLength(1)
    expect(got!.summary).toBe('2 agents need you')
    expect(got!.body).toContain('Job 21')
    expect(got!.body).toContain('Job 22')
    expect(got!.body).not.toMatch(/Job 2[345]/)
    await n.stop()
  })

  it('resumes where it stopped: a restart pages nothing twice, and an ask made while it was down pages once', async () => {
    startSession(sid(31), 'First')
    startSession(sid(32), 'Second')
    await runCast(['sessions'], {env: h.env})
    let n = await notifier()
    ask(sid(31), 'One?')
    await waitNotes(1)
    await n.stop()

    ask(sid(32), 'Two?')
    await runCast(['sessions'], {env: h.env})
    n = await notifier()
    const printed = n.lines
    const got = await waitNotes(2).catch((error: Error) => {
      throw new Error(`${error.message}; cast notify printed: ${printed.join(' | ')}`)
    })
    await new Promise((r) => setTimeout(r, 1000))

    expect(notes()).toHaveLength(2)
    expect(got[1]).toMatchObject({summary: 'Claude asked a question'})
    expect(got[1]!.body).toContain('Second')
    await n.stop()
  })

  it('cast daemon --notify pages too; a declared done is a soft (low urgency) notification', async () => {
    startSession(sid(41), 'Refactor')
    await runCast(['sessions'], {env: h.env})
    const d = startCast(['daemon', '--notify'], h.env)
    // The daemon says when its notifier reads the log.
    let stderr = ''
    d.child.stderr!.on('data', (c) => (stderr += String(c)))
    await waitForWatcher(h.castHome)
    for (const end = Date.now() + 30_000; !stderr.includes('cast daemon: paging');) {
      if (Date.now() > end) throw new Error(`the daemon never started paging: ${stderr}`)
      await new Promise((r) => setTimeout(r, 50))
    }

    // The agent declares done during its turn, then the turn ends: done/declared_done directly.
    const state = await runCast(['state', '--session', sid(41), '--status', 'done', 'Refactor merged'], {env: h.env})
    expect(state.code, state.stderr).toBe(0)
    fs.appendFileSync(
      file(sid(41)),
      JSON.stringify({
        cwd: CWD,
        message: {
          content: [{text: 'Refactored.', type: 'text'}],
          id: 'msg_d41',
          model: 'claude-opus-4',
          role: 'assistant',
          stop_reason: 'end_turn',
          type: 'message',
        },
        sessionId: sid(41),
        timestamp: new Date().toISOString(),
        type: 'assistant',
        uuid: 'a41',
      }) + '\n',
    )

    const [got] = await waitNotes(1)
    expect(got).toMatchObject({summary: 'Claude is done', urgency: 0})
    expect(got!.body).toBe('Refactor')
    await new Promise((r) => setTimeout(r, 1000))
    expect(notes()).toHaveLength(1)
    expect(await d.stop()).toBe(0)
  })

  it('a declared blocked pages with what the agent needs in the body', async () => {
    startSession(sid(51), 'Migrate the DB')
    await runCast(['sessions'], {env: h.env})
    const n = await notifier()

    const state = await runCast(['state', '--session', sid(51), '--status', 'blocked', 'Need the staging DB password'], {env: h.env})
    expect(state.code, state.stderr).toBe(0)
    fs.appendFileSync(
      file(sid(51)),
      JSON.stringify({
        cwd: CWD,
        message: {
          content: [{text: 'Stuck.', type: 'text'}],
          id: 'msg_d51',
          model: 'claude-opus-4',
          role: 'assistant',
          stop_reason: 'end_turn',
          type: 'message',
        },
        sessionId: sid(51),
        timestamp: new Date().toISOString(),
        type: 'assistant',
        uuid: 'a51',
      }) + '\n',
    )

    const [got] = await waitNotes(1)
    expect(got!.body).toBe('Migrate the DB\nNeed the staging DB password')
    expect(JSON.parse(await n.nextLine())).toMatchObject({kind: 'needs_input'})
    expect(await n.stop()).toBe(0)
  })

  it('the quiet band: "Claude has gone quiet" (low urgency) once nothing louder asks, never while a demand is pending', async () => {
    startSession(sid(51), 'Long build')
    startSession(sid(52), 'Pick a colour')
    ask(sid(52), 'Red or blue?')
    await runCast(['sessions'], {env: h.env})
    // The clock every time rule uses, 11 minutes on: the working session has been silent 10+ minutes.
    const later = {...h.env, CAST_NOW: new Date(Date.now() + 11 * 60_000).toISOString()}
    let n = startCast(['notify', '--json', '--backend', 'freedesktop'], later)
    await waitForWatcher(h.castHome)
    await new Promise((r) => setTimeout(r, 2000))
    expect(notes()).toEqual([])
    await n.stop()

    expect((await runCast(['mark', 'done', sid(52)], {env: h.env})).code).toBe(0)
    n = startCast(['notify', '--json', '--backend', 'freedesktop'], later)
    const [got] = await waitNotes(1)
    expect(got).toMatchObject({body: 'Long build', summary: 'Claude has gone quiet', urgency: 0})
    await new Promise((r) => setTimeout(r, 1000))
    expect(notes()).toHaveLength(1)
    await n.stop()
  })
})
