/**
 * Conformance: the real pi 0.73.1 (devDependency @mariozechner/pi-coding-agent), driven in a
 * private tmux server against the project's mock chat-completions server, checked against cast
 * one-shot (`cast sessions --json`) and through a running `cast sessions -w --json`.
 * What pi writes and shows at this version, and the scenarios it cannot produce (no permission
 * dialog, no question tool, no background shells or subagents, no hooks): docs/agents/pi.md.
 */
import {afterAll, describe, expect, it} from 'vitest'
import {type CastSession, DEAD_BOUND_MS, recordFigure, runCast, sessions, until, Watch} from './harness/cast.js'
import {type Mock, type Reply, repeat, sequence, startMock, status, text, tool} from './harness/mock/server.js'
import {descendants} from './harness/tmux.js'
import {kill, killAll, makePiHome, type PiHome, shape} from './pi/setup.js'

const AGENT = 'pi'
const mocks: Mock[] = []
const watches: Watch[] = []
const stray: number[] = []

afterAll(async () => {
  for (const w of watches) await w.stop()
  for (const p of stray) kill(p)
  killAll()
  for (const m of mocks) await m.close()
})

async function setup(name: string, replies: readonly Reply[], after?: Reply): Promise<{h: PiHome; mock: Mock}> {
  const mock = await startMock(sequence(replies, after ? {after} : {}))
  mocks.push(mock)
  return {h: makePiHome(name, mock), mock}
}

function watch(h: PiHome): Watch {
  const w = new Watch(h.cast)
  watches.push(w)
  return w
}

/** Let the watch's ingester make its first pass before the action, so arrival times measure the action. */
async function ready(w: Watch, h: PiHome): Promise<void> {
  await sessions(h.cast)
  await w.ready()
}

const rows = async (h: PiHome): Promise<CastSession[]> => (await sessions(h.cast)).filter((s) => s.agent === AGENT)
const is = (state: string, reason?: string) => (s: CastSession) =>
  s.agent === AGENT && s.state === state && (reason === undefined || s.reason === reason)
const lineIs = (state: string, reason?: string) => (l: Record<string, any>) =>
  l.agent === AGENT && l.to === state && (reason === undefined || l.reason === reason)
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Wait until pi's session file holds an entry that satisfies `ok`. */
async function fileShows(h: PiHome, ok: (shapes: string[]) => boolean, timeoutMs = 60_000): Promise<string[]> {
  const end = Date.now() + timeoutMs
  let last: string[] = []
  while (Date.now() < end) {
    last = shape(h.entries())
    if (ok(last)) return last
    await sleep(200)
  }

  throw new Error(`pi's file never matched within ${timeoutMs} ms; it holds: ${last.join(', ') || '(no file)'}`)
}

/** The agent process of a pane and the tool processes under it. */
function agentTree(pid: number): number[] {
  return [pid, ...descendants(pid)]
}

describe(AGENT, () => {
  it('fresh: a TUI with nothing asked is not working', async () => {
    const {h} = await setup('fresh', [text('unused')])
    const pane = await h.tui()
    expect(h.tmux.capture(pane)).toMatch(/escape interrupt/)
    // pi 0.73.1 writes no session file before the first assistant message.
    expect(h.files()).toEqual([])
    const listed = await rows(h)
    expect(listed.filter((s) => s.state === 'working')).toEqual([])
    for (const s of listed) expect(['idle', 'needs_input']).toContain(s.state)
  })

  it('plain: a finished answer reads needs_input/settled (one-shot and watch)', async () => {
    const {h} = await setup('plain', [text('Hello from the mock.')])
    const pane = await h.tui()
    const w = watch(h)
    await ready(w, h)
    h.tmux.type(pane, 'say hello')
    await h.tmux.waitFor(pane, /Hello from the mock\./)
    await fileShows(h, (s) => s.includes('assistant/stop'))
    const seen = Date.now()
    expect(shape(h.entries())).toEqual(['session', 'model_change', 'thinking_level_change', 'user', 'assistant/stop'])
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
    expect(s).toMatchObject({messages: 2, title: 'say hello'})
    const line = await w.wait(lineIs('needs_input', 'settled'), 90_000)
    recordFigure(AGENT, 'plain', {watch_ms: Math.max(0, line.at - seen)})
    expect(await rows(h)).toHaveLength(1)
  })

  it('long_command: a command that runs for seconds reads working the whole time', async () => {
    const {h} = await setup('long', [tool('bash', {command: 'sleep 8 && echo slept'}), text('It slept.')])
    const pane = await h.tui()
    h.tmux.type(pane, 'sleep a while')
    // The tool call is written when the model's message ends, before the command runs.
    await fileShows(h, (s) => s.includes('assistant/toolUse'))
    const states: string[] = []
    while (!/It slept\./.test(h.tmux.capture(pane))) {
      const listed = await rows(h)
      if (/It slept\./.test(h.tmux.capture(pane))) break
      states.push(listed.map((s) => `${s.state}/${s.reason}`).join(',') || 'none')
      await sleep(700)
    }

    expect(states.length).toBeGreaterThan(2)
    for (const st of states) expect(st).toMatch(/^working\/[a-z_]+$/)
    await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled after the command')
  })

  it('kill9: pi killed -9 mid-turn reads needs_input/dead within 2 s (watch)', async () => {
    const {h} = await setup('kill9', [tool('bash', {command: 'sleep 60'})])
    const pane = await h.tui()
    const w = watch(h)
    await ready(w, h)
    h.tmux.type(pane, 'run the long job')
    await fileShows(h, (s) => s.includes('assistant/toolUse'))
    await until(h.cast, is('working'), 90_000, 'working before the kill')
    await w.wait(lineIs('working'), 90_000)
    const from = w.lines.length
    const tree = agentTree(pane.pid)
    stray.push(...tree)
    kill(pane.pid)
    const killedAt = Date.now()
    const line = await w.wait(lineIs('needs_input', 'dead'), 90_000, from)
    const ms = line.at - killedAt
    recordFigure(AGENT, 'kill9', {dead_ms: ms})
    expect(ms).toBeLessThanOrEqual(DEAD_BOUND_MS)
    const s = await until(h.cast, is('needs_input', 'dead'), 10_000, 'needs_input/dead')
    expect(s.live).toBe(false)
  })

  it('kill9_unseen: a crash before cast first looks still reads needs_input/dead', async () => {
    const {h} = await setup('unseen', [tool('bash', {command: 'sleep 60'})])
    const pane = await h.tui()
    h.tmux.type(pane, 'run the long job')
    await fileShows(h, (s) => s.includes('assistant/toolUse'))
    await h.tmux.waitFor(pane, /Working\.\.\./)
    stray.push(...agentTree(pane.pid))
    kill(pane.pid)
    await sleep(300)
    const s = await until(h.cast, is('needs_input', 'dead'), 10_000, 'needs_input/dead at the first look')
    expect(s.live).toBe(false)
  })

  it('retrying: pi waiting to retry a 500 reads working, and the answer after it settles', async () => {
    // The OpenAI SDK under pi retries twice itself: three 500s are one failed attempt of pi's.
    const {h} = await setup('retrying', [...repeat(status(500), 3), text('Answer after the retry.', {chunks: 2, delayMs: 200})])
    const pane = await h.tui()
    const w = watch(h)
    await ready(w, h)
    h.tmux.type(pane, 'answer despite errors')
    await h.tmux.waitFor(pane, /Retrying \(1\/3\)/)
    expect(shape(h.entries()).slice(3)).toEqual(['user', 'assistant/error'])
    const s = await until(h.cast, (x) => x.agent === AGENT, 10_000, 'the session')
    // The screen may have moved on by the time cast answers; never an error while pi retries.
    expect(s.state === 'working' || (s.state === 'needs_input' && s.reason === 'settled')).toBe(true)
    await h.tmux.waitFor(pane, /Answer after the retry\./)
    const done = await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled after the retry')
    // The failed attempt is no message: the prompt and the answer are.
    expect(done.messages).toBe(2)
    const mine = w.lines.filter((l) => l.line.agent === AGENT).map((l) => `${l.line.to}/${l.line.reason}`)
    expect(
      mine.filter((l) => l.endsWith('/error')),
      mine.join(' → '),
    ).toEqual([])
  })

  it('error: retries spent on 500s read needs_input/error with the banner pi shows', async () => {
    const {h} = await setup('exhausted', repeat(status(500), 12))
    const pane = await h.tui()
    const w = watch(h)
    await ready(w, h)
    h.tmux.type(pane, 'fail for good')
    await h.tmux.waitFor(pane, /Retry failed after 3 attempts/, 90_000)
    const seen = Date.now()
    expect(shape(h.entries()).slice(3)).toEqual(['user', 'assistant/error', 'assistant/error', 'assistant/error', 'assistant/error'])
    const s = await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error')
    expect((await runCast(['explain', s.id], {env: h.cast})).stdout).toContain('Retry failed after 3 attempts: 500 mock 500')
    const line = await w.wait(lineIs('needs_input', 'error'), 90_000)
    recordFigure(AGENT, 'error', {watch_ms: Math.max(0, line.at - seen)})
    // While pi retried, cast never said error.
    expect(w.lines.filter((l) => l.line.agent === AGENT && l.line.reason === 'error')).toHaveLength(1)
  })

  it('error: a 401 (pi does not retry it) reads needs_input/error at once', async () => {
    const {h} = await setup('e401', [status(401)])
    const pane = await h.tui()
    h.tmux.type(pane, 'use a bad key')
    await h.tmux.waitFor(pane, /Error: 401/)
    expect(shape(h.entries()).slice(3)).toEqual(['user', 'assistant/error'])
    const s = await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error')
    expect((await runCast(['explain', s.id], {env: h.cast})).stdout).toMatch(/error\s+401 mock 401/)
    expect(s.messages).toBe(1)
  })

  it('declared_done: the agent runs `cast state --status done` and reads done/declared_done', async () => {
    const {h} = await setup('declared', [tool('bash', {command: 'cast state --status done "Shipped the fix"'}), text('Declared it done.')])
    const pane = await h.tui()
    const w = watch(h)
    await ready(w, h)
    h.tmux.type(pane, 'finish and declare')
    await h.tmux.waitFor(pane, /Declared it done\./)
    const seen = Date.now()
    const result = h.entries().find((e) => e.type === 'message' && e.message.role === 'toolResult')
    // cast found pi's session from the process tree (the shell's pi ancestor) and recorded it.
    expect(result?.message.isError, JSON.stringify(result?.message.content)).toBe(false)
    const s = await until(h.cast, is('done', 'declared_done'), 90_000, 'done/declared_done')
    expect((s.state_line as any)?.text).toContain('Shipped the fix')
    const line = await w.wait(lineIs('done', 'declared_done'), 90_000)
    recordFigure(AGENT, 'declared_done', {watch_ms: Math.max(0, line.at - seen)})
  })

  it('headless: `pi -p` to completion reads needs_input/settled', async () => {
    const {h} = await setup('headless', [text('Headless answer.')])
    const w = watch(h)
    await ready(w, h)
    const run = h.headless('answer headless')
    expect(await run.done).toBe(0)
    await w.wait(lineIs('needs_input', 'settled'), 90_000)
    expect(run.out()).toContain('Headless answer.')
    expect(shape(h.entries()).slice(-2)).toEqual(['user', 'assistant/stop'])
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
    expect(s.messages).toBe(2)
  })

  it('headless_killed: `pi -p` killed -9 mid-run reads needs_input/dead', async () => {
    const {h} = await setup('headless-killed', [tool('bash', {command: 'sleep 60'})])
    const run = h.headless('run the long job headless')
    await fileShows(h, (s) => s.includes('assistant/toolUse'))
    await until(h.cast, is('working'), 90_000, 'working while it runs')
    stray.push(...agentTree(run.child.pid!))
    kill(run.child.pid!)
    const killedAt = Date.now()
    await run.done
    const s = await until(h.cast, is('needs_input', 'dead'), 90_000, 'needs_input/dead')
    recordFigure(AGENT, 'headless_killed', {dead_ms: Date.now() - killedAt})
    expect(s.live).toBe(false)
  })

  it('headless_unwritten: `pi -p` before its first reply is listed working from its process, dead once killed', async () => {
    const {h, mock} = await setup('headless-unwritten', [{kind: 'stall', text: 'thinking'}])
    const run = h.headless('a question pi has not answered yet')
    await mock.waitMain(1)
    // pi has written nothing yet: the run is known only from its process.
    expect(h.files()).toEqual([])
    const s = await until(h.cast, is('working'), 90_000, 'working before the first reply')
    expect(s.pid).toBe(run.child.pid)
    stray.push(...agentTree(run.child.pid!))
    kill(run.child.pid!)
    const killedAt = Date.now()
    await run.done
    const dead = await until(h.cast, (x) => x.id === s.id && x.state === 'needs_input' && x.reason === 'dead', 90_000, 'dead once killed')
    recordFigure(AGENT, 'headless_unwritten', {dead_ms: Date.now() - killedAt})
    expect(dead.live).toBe(false)
  })

  it('headless_unwritten_answered: the run listed from its process gives way to the session pi writes', async () => {
    const {h, mock} = await setup('headless-answered', [text('A slow but complete answer.', {chunks: 8, delayMs: 1500})])
    const run = h.headless('a slow question')
    await mock.waitMain(1)
    const early = await until(h.cast, is('working'), 90_000, 'working before the first reply')
    expect(h.files()).toEqual([])
    expect(await run.done).toBe(0)
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled once answered')
    expect(s.id).not.toBe(early.id)
    expect(s.messages).toBe(2)
    // One session for one run: the process-born one is gone.
    expect((await rows(h)).map((x) => `${x.state}/${x.reason}`)).toEqual(['needs_input/settled'])
  })

  it('send: `cast send` at the prompt arrives as the next turn', async () => {
    const {h, mock} = await setup('send', [text('First answer.'), text('Second answer.')])
    const pane = await h.tui()
    h.tmux.type(pane, 'first question')
    await h.tmux.waitFor(pane, /First answer\./)
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled before the send')
    const w = watch(h)
    await ready(w, h)
    const r = await runCast(['send', s.id, '--', 'the follow-up from cast'], {env: h.cast, timeout: 60_000})
    expect(r.code, r.stderr).toBe(0)
    await h.tmux.waitFor(pane, /Second answer\./)
    await w.wait(lineIs('needs_input', 'settled'), 90_000)
    expect(mock.requests.filter((q) => !q.side).at(-1)?.lastUserText).toBe('the follow-up from cast')
    expect(shape(h.entries()).slice(3)).toEqual(['user', 'assistant/stop', 'user', 'assistant/stop'])
    const after = await until(h.cast, (x) => is('needs_input', 'settled')(x) && x.messages === 4, 90_000, 'settled with 4 messages')
    expect(after.id).toBe(s.id)
  })

  it('two_sessions: two TUIs in one home and folder each keep their own state', async () => {
    const {h, mock} = await setup('two', [])
    mock.setScript((req) => {
      if (req.side) return undefined
      if (req.lastUserText === 'first one') return text('One is answered.')
      return req.toolResults > 0 ? {kind: 'stall'} : tool('bash', {command: 'sleep 30'})
    })
    const a = await h.tui()
    if (a) h.tmux.type(a, 'first one')
    await h.tmux.waitFor(a, /One is answered\./)
    const b = await h.tui()
    h.tmux.type(b, 'second one')
    await h.tmux.waitFor(b, /Working\.\.\./)
    await fileShows(h, () => h.files().length === 2 && h.files().some((f) => shape(h.entries(f)).includes('assistant/toolUse')))
    const both = async (): Promise<CastSession[]> => (await rows(h)).sort((x, y) => x.title.localeCompare(y.title))
    const end = Date.now() + 90_000
    let got: CastSession[] = []
    while (Date.now() < end) {
      got = await both()
      if (got.length === 2 && got[0]!.state === 'needs_input' && got[1]!.state === 'working') break
      await sleep(500)
    }

    expect(got.map((s) => [s.title, s.state, s.reason])).toEqual([
      ['first one', 'needs_input', 'settled'],
      ['second one', 'working', expect.any(String)],
    ])
    stray.push(...agentTree(b.pid), ...agentTree(a.pid))
  })

  it('error: a retry cancelled with Escape reads needs_input/error (the banner is on screen only)', async () => {
    const {h} = await setup('cancel', repeat(status(500), 3))
    const pane = await h.tui()
    h.tmux.type(pane, 'retry then cancel')
    await h.tmux.waitFor(pane, /Retrying \(1\/3\)/)
    h.tmux.keys(pane, 'Escape')
    await h.tmux.waitFor(pane, /Retry failed after 1 attempts: Retry cancelled/)
    // The file ends at the error leaf pi was going to retry: nothing written says it stopped.
    expect(shape(h.entries()).slice(3)).toEqual(['user', 'assistant/error'])
    const s = await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error from the screen')
    expect(s.live).toBe(true)
    expect((await runCast(['explain', s.id], {env: h.cast})).stdout).toContain('Retry cancelled')
  })

  it('bad_stream: a truncated stream and a garbage chunk; cast reads what pi wrote without crashing', async () => {
    const {h} = await setup(
      'bad',
      [
        {kind: 'truncated', text: 'This stream is cut'},
        {kind: 'garbage', text: 'A reply with a garbage chunk inside.'},
      ],
      text('Clean answer at last.'),
    )
    const pane = await h.tui()
    h.tmux.type(pane, 'stream badly')
    // pi 0.73.1: the cut stream is an error it retries ("terminated"); the garbage chunk ends the
    // turn with a JSON error it does not retry. A later pi may recover: then the clean answer.
    await h.tmux.waitFor(pane, /Error: Expected property name|Clean answer at last\./, 90_000)
    const entries = h.entries()
    expect(shape(entries).slice(3, 5)).toEqual(['user', 'assistant/error'])
    const last = entries.at(-1)!.message
    const s = await until(h.cast, (x) => x.agent === AGENT && x.state !== 'working', 90_000, 'a settled reading')
    if (last.stopReason === 'error') expect(s).toMatchObject({reason: 'error', state: 'needs_input'})
    else expect(s).toMatchObject({reason: 'settled', state: 'needs_input'})
    const explained = await runCast(['explain', s.id], {env: h.cast})
    expect(explained.code).toBe(0)
  })
})
