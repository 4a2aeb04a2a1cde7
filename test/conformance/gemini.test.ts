/**
 * Conformance: the real Gemini CLI 0.61.0 (node_modules/.bin/gemini), driven in a private tmux
 * server against the mock model server (Gemini streamGenerateContent), each run in its own HOME.
 * The truth is read on the screen and in the chat file; cast is checked one-shot and through a
 * running `cast sessions -w --json`. What cast reads and why: docs/agents/gemini.md.
 */
import {spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect} from 'vitest'

import {BIN, HOOK_BIN} from '../helpers/cli.js'
import {castEnv, type CastSession, DEAD_BOUND_MS, recordFigure, runCast, sessions, until, Watch} from './harness/cast.js'
import {repeat, sequence, startMock, status, text, tool, type Mock, type Reply} from './harness/mock/server.js'
import {atCaseEnd, concurrentCase} from './harness/scope.js'
import {descendants, Tmux, type AgentPane} from './harness/tmux.js'
import {agentBin} from './harness/agent-bin.js'

const AGENT = 'gemini'
/** The CLI under test: this checkout's devDependency. */
const GEMINI = agentBin('gemini')
const READY = /Type your message/
/** Gemini TUIs running at once in this file (each is two node processes; the machine has 2 cores). */
const SLOTS = 3

let free = SLOTS
const queue: (() => void)[] = []
async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (free === 0) await new Promise<void>((resolve) => queue.push(resolve))
  else free--
  try {
    return await fn()
  } finally {
    const next = queue.shift()
    if (next) next()
    else free++
  }
}

const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c()
    } catch {
      /* best effort */
    }
  }
})

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

interface Rig {
  readonly dir: string
  readonly home: string
  readonly work: string
  readonly mock: Mock
  readonly tmux: Tmux
  /** The agent's environment (what a user's shell would hand it). */
  readonly agentEnv: Record<string, string>
  /** cast's environment for this home. */
  readonly env: Record<string, string>
  readonly watches: Watch[]
}

interface RigOptions {
  /** `cast hooks install gemini` before the CLI starts. */
  readonly hooks?: boolean
  /** Tools that run without a dialog (settings `tools.allowed`). */
  readonly allowed?: readonly string[]
}

/** A fresh home for one scenario: settings that reach the mock offline, a tmux server, cast's env. */
async function rig(
  name: string,
  script: Reply[] | ((req: import('./harness/mock/server.js').MockRequest) => Reply | undefined),
  opts: RigOptions = {},
): Promise<Rig> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cast-conf-gemini-${name}-`))
  const home = path.join(dir, 'home')
  const work = path.join(dir, 'work')
  fs.mkdirSync(path.join(home, '.gemini'), {recursive: true})
  fs.mkdirSync(work)
  const settings = {
    general: {disableAutoUpdate: true, disableUpdateNag: true},
    privacy: {usageStatisticsEnabled: false},
    security: {auth: {selectedType: 'gemini-api-key'}, folderTrust: {enabled: false}},
    telemetry: {enabled: false},
    ...(opts.allowed ? {tools: {allowed: opts.allowed}} : {}),
  }
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2))
  const mock = await startMock(Array.isArray(script) ? sequence(script) : script)
  // The screen sweep reads every server under $TMUX_TMPDIR/tmux-<uid>/ (not only `default`); a private TMUX_TMPDIR per scenario.
  const tmux = Tmux.start(path.join(dir, 'tmux'), 'gemini')
  const env = castEnv(home, tmux.env)
  // `cast` on the agent's PATH, as a user who installed cast has it (for `cast state` from a shell tool).
  const binDir = path.join(dir, 'bin')
  fs.mkdirSync(binDir)
  fs.writeFileSync(path.join(binDir, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  const agentEnv = {
    CAST_HOME: env.CAST_HOME!,
    CAST_USER: env.CAST_USER!,
    GEMINI_API_KEY: 'conformance-fake-key',
    GOOGLE_GEMINI_BASE_URL: mock.url,
    HOME: home,
    LANG: 'C.UTF-8',
    PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  }
  const r: Rig = {agentEnv, dir, env, home, mock, tmux, watches: [], work}
  atCaseEnd(cleanups, async () => {
    for (const w of r.watches) await w.stop()
    killTree(tmux)
    tmux.stop()
    await mock.close()
    fs.rmSync(dir, {force: true, recursive: true})
  })
  if (opts.hooks) {
    const res = await runCast(['hooks', 'install', 'gemini'], {env})
    expect(res.code, res.stderr).toBe(0)
  }

  return r
}

/** Every process of every pane of this server, killed -9 (the agents and their shells). */
function killTree(tmux: Tmux): void {
  let out = ''
  try {
    out = tmux.run(['list-panes', '-a', '-F', '#{pane_pid}'])
  } catch {
    return
  }

  for (const pid of out
    .split('\n')
    .map(Number)
    .filter((p) => p > 1)) {
    for (const p of [...descendants(pid), pid]) {
      try {
        process.kill(p, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
  }
}

function watch(r: Rig): Watch {
  const w = new Watch(r.env)
  r.watches.push(w)
  return w
}

/** Start the TUI in `cwd` (default the rig's work folder) and wait for its prompt. */
async function startTui(r: Rig, cwd = r.work, args: string[] = []): Promise<AgentPane> {
  const pane = r.tmux.open([GEMINI, ...args], {cwd, env: r.agentEnv})
  await r.tmux.waitFor(pane, READY, 90_000)
  return pane
}

/**
 * Type a prompt as a user does and press Enter once the TUI shows it in its input; Enter again
 * if the input still holds it (a TUI still settling on a loaded machine can drop the key).
 */
async function submit(r: Rig, pane: AgentPane, prompt: string): Promise<void> {
  const before = r.mock.mainCount()
  r.tmux.type(pane, prompt, false)
  await r.tmux.waitFor(pane, new RegExp(`> ${prompt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), 90_000)
  for (let i = 0; i < 4; i++) {
    await sleep(300)
    r.tmux.keys(pane, 'Enter')
    const end = Date.now() + 5000
    while (Date.now() < end) {
      if (r.mock.mainCount() > before || READY.test(r.tmux.capture(pane))) return
      await sleep(250)
    }
  }
}

/** The main chat files under this home. */
function chatFiles(r: Rig): string[] {
  const tmp = path.join(r.home, '.gemini', 'tmp')
  const out: string[] = []
  const walk = (d: string): void => {
    for (const e of fs.existsSync(d) ? fs.readdirSync(d, {withFileTypes: true}) : []) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (/^session-.*\.jsonl$/.test(e.name)) out.push(p)
    }
  }

  walk(tmp)
  return out
}

function chatLines(file: string): any[] {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
}

const mine = (s: CastSession): boolean => s.agent === AGENT && !s.parent_id
const is =
  (state: string, reason?: string) =>
  (s: CastSession): boolean =>
    mine(s) && s.state === state && (reason === undefined || s.reason === reason)
const lineIs =
  (state: string, reason?: string) =>
  (l: Record<string, any>): boolean =>
    l.agent === AGENT && l.to === state && (reason === undefined || l.reason === reason)

/** What the inbox shows under a row (`asks: …`), for the ask text. */
async function listing(r: Rig): Promise<string> {
  return (await runCast(['sessions', '--all'], {env: r.env})).stdout
}

const ask = {
  questions: [
    {
      header: 'Colour',
      options: [
        {description: 'warm', label: 'Red'},
        {description: 'cool', label: 'Blue'},
      ],
      question: 'Which colour should the button be?',
      type: 'choice',
    },
  ],
}

describe(AGENT, () => {
  concurrentCase('fresh: a TUI with nothing asked is new/idle, never working', () =>
    slot(async () => {
      const r = await rig('fresh', [])
      const w = watch(r)
      await startTui(r)
      // The chat file exists from the start; its injected <session_context> message is not a prompt.
      await until(r.env, () => chatFiles(r).length === 1, 90_000, 'the chat file')
      const lines = chatLines(chatFiles(r)[0]!)
      expect(JSON.stringify(lines[1])).toContain('<session_context>')
      const s = await until(r.env, mine, 90_000, 'the fresh session')
      expect([s.state, s.reason, s.messages, s.bucket]).toEqual(['idle', 'empty', 0, 'new'])
      const first = await w.wait((l) => l.agent === AGENT, 90_000)
      expect(first.line.to).toBe('idle')
      expect(w.lines.some((l) => l.line.agent === AGENT && l.line.to === 'working')).toBe(false)
    }),
  )

  concurrentCase('plain: an answered prompt is needs_input/settled', () =>
    slot(async () => {
      const r = await rig('plain', [text('Hello from the mock.')])
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'say hello')
      await r.tmux.waitFor(pane, /Hello from the mock\./)
      const shownAt = Date.now()
      const s = await until(r.env, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
      expect(s.messages).toBe(2)
      expect(s.title).toBe('say hello')
      const l = await w.wait(lineIs('needs_input', 'settled'), 90_000)
      recordFigure(AGENT, 'plain', {watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('approval: the permission dialog is needs_input/approval and the tool has not run', () =>
    slot(async () => {
      const r = await rig('approval', [
        tool('run_shell_command', {command: 'echo ran > approved.txt', description: 'write a file'}),
        text('Wrote it.'),
      ])
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'write the file')
      await r.tmux.waitFor(pane, /Allow execution of \[Shell\]\?/)
      const shownAt = Date.now()
      const s = await until(r.env, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      expect(s.bucket).toBe('questions')
      expect(await listing(r)).toMatch(/echo ran > approved\.txt/)
      expect(fs.existsSync(path.join(r.work, 'approved.txt'))).toBe(false)
      const l = await w.wait(lineIs('needs_input', 'approval'), 90_000)
      recordFigure(AGENT, 'approval', {watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('question: an ask_user dialog is needs_input/question with the question as the ask', () =>
    slot(async () => {
      const r = await rig('question', [tool('ask_user', ask), text('Thanks.')])
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'ask me something')
      await r.tmux.waitFor(pane, /Answer Questions[\s\S]*Which colour should the button be\?/)
      const shownAt = Date.now()
      const s = await until(r.env, is('needs_input', 'question'), 90_000, 'needs_input/question')
      expect(s.bucket).toBe('questions')
      expect(await listing(r)).toMatch(/asks: Which colour should the button be\?/)
      const l = await w.wait(lineIs('needs_input', 'question'), 90_000)
      recordFigure(AGENT, 'question', {watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('long_command: a 35 s shell command reads working the whole time (also past "Shell awaiting input")', () =>
    slot(async () => {
      const r = await rig(
        'long',
        [tool('run_shell_command', {command: 'sleep 35; echo slept', description: 'wait'}), text('Slept well.')],
        {allowed: ['run_shell_command']},
      )
      const pane = await startTui(r)
      await submit(r, pane, 'sleep a while')
      await r.tmux.waitFor(pane, /esc to cancel/i)
      await until(r.env, is('working'), 90_000, 'working')
      const w = watch(r)
      const seen: string[] = []
      let awaiting = false
      let afterAwaiting = 0
      while (!/Slept well\./.test(r.tmux.capture(pane))) {
        const was = awaiting
        awaiting ||= /Shell awaiting input/.test(r.tmux.capture(pane))
        const s = (await sessions(r.env)).find(mine)
        if (/Slept well\./.test(r.tmux.capture(pane))) break
        seen.push(`${s?.state}/${s?.reason}`)
        if (was) afterAwaiting++
        await sleep(1500)
      }

      // However slow the machine, cast was asked while the command ran (each answer waits for the screen sweep).
      expect(seen.length).toBeGreaterThanOrEqual(2)
      // Past ~20 s of silence the busy line becomes `! Shell awaiting input (Tab to focus)`: still working.
      expect(awaiting).toBe(true)
      expect(afterAwaiting).toBeGreaterThanOrEqual(1)
      expect(seen.filter((x) => !x.startsWith('working/'))).toEqual([])
      expect(w.lines.filter((l) => l.line.agent === AGENT && l.line.to !== 'working' && l.at < Date.now() - 3000)).toEqual([])
      recordFigure(AGENT, 'long_command', {
        polls: seen.length,
        polls_after_shell_awaiting_input: afterAwaiting,
        shell_awaiting_input_seen: String(awaiting),
      })
      await until(r.env, is('needs_input', 'settled'), 90_000, 'settled after the command')
    }),
  )

  concurrentCase('retrying: 429s being retried read working', () =>
    slot(async () => {
      const r = await rig('retrying', repeat(status(429), 200))
      const pane = await startTui(r)
      const w = watch(r)
      await submit(r, pane, 'try hard')
      await r.mock.waitMain(2, 90_000)
      await r.tmux.waitFor(pane, /esc to cancel/i)
      await until(r.env, is('working'), 90_000, 'working while retrying')
      const seen: string[] = []
      for (let i = 0; i < 6; i++) {
        await sleep(1500)
        const s = (await sessions(r.env)).find(mine)
        seen.push(`${s?.state}/${s?.reason}`)
      }

      expect(r.mock.mainCount()).toBeGreaterThanOrEqual(2)
      expect(seen.filter((x) => !x.startsWith('working/'))).toEqual([])
      expect(w.lines.filter((l) => l.line.agent === AGENT && l.line.to === 'needs_input')).toEqual([])
    }),
  )

  concurrentCase('error: a 401 is needs_input/error', () =>
    slot(async () => {
      const r = await rig('e401', [status(401)])
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'fail please')
      await r.tmux.waitFor(pane, /✕ \[API Error:.*401/)
      const shownAt = Date.now()
      await until(r.env, is('needs_input', 'error'), 90_000, 'needs_input/error')
      const l = await w.wait(lineIs('needs_input', 'error'), 90_000)
      recordFigure(AGENT, 'error', {status: 401, watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('error: the daily-quota dialog ("Usage limit reached … Keep trying / Stop") is needs_input/error', () =>
    slot(async () => {
      const body = JSON.stringify({
        error: {
          code: 429,
          details: [
            {'@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{quotaId: 'GenerateRequestsPerDayPerProjectPerModel'}]},
          ],
          message: 'Quota exceeded',
          status: 'RESOURCE_EXHAUSTED',
        },
      })
      const r = await rig('quota', repeat({body, kind: 'http', status: 429}, 50))
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'use the quota')
      await r.tmux.waitFor(pane, /Usage limit reached[\s\S]*Keep trying[\s\S]*Stop/)
      const shownAt = Date.now()
      await until(r.env, is('needs_input', 'error'), 90_000, 'needs_input/error')
      const l = await w.wait(lineIs('needs_input', 'error'), 90_000)
      recordFigure(AGENT, 'error', {status: 'quota', watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('declared_done: the agent runs `cast state --status done` and reads done/declared_done', () =>
    slot(async () => {
      const r = await rig(
        'done',
        [tool('run_shell_command', {command: 'cast state --status done "shipped it"', description: 'declare done'}), text('Declared.')],
        {allowed: ['run_shell_command']},
      )
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'finish up')
      await r.tmux.waitFor(pane, /Declared\./)
      const shownAt = Date.now()
      const s = await until(r.env, is('done', 'declared_done'), 90_000, 'done/declared_done')
      expect(s.state_line).toMatchObject({status: 'done', text: 'shipped it'})
      const l = await w.wait(lineIs('done', 'declared_done'), 90_000)
      recordFigure(AGENT, 'declared_done', {watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )

  concurrentCase('send: `cast send` at the prompt arrives as the next turn', () =>
    slot(async () => {
      const r = await rig('send', [text('First answer.'), text('Second answer.')])
      const pane = await startTui(r)
      await submit(r, pane, 'first question')
      await r.tmux.waitFor(pane, /First answer\./)
      const s = await until(r.env, is('needs_input', 'settled'), 90_000, 'settled before send')
      const w = watch(r)
      const res = await runCast(['send', s.id, 'second question from cast'], {env: r.env})
      expect(res.code, res.stderr).toBe(0)
      await r.mock.waitMain(2, 60_000)
      expect(r.mock.requests.filter((q) => !q.side).at(-1)!.lastUserText).toContain('second question from cast')
      await r.tmux.waitFor(pane, /Second answer\./)
      const after = await until(r.env, (x) => is('needs_input', 'settled')(x) && x.messages === 4, 90_000, 'the second turn settled')
      expect(after.id).toBe(s.id)
      await w.wait(lineIs('needs_input', 'settled'), 90_000)
    }),
  )

  concurrentCase('two_sessions: two TUIs in one home each keep their own state', () =>
    slot(async () => {
      const script = (req: import('./harness/mock/server.js').MockRequest): Reply | undefined => {
        if (req.side) return undefined
        if (req.lastUserText.includes('ask first'))
          return req.toolResults > 0 ? text('ok') : tool('run_shell_command', {command: 'echo two > two.txt', description: 'two'})
        return text('Plain one.')
      }

      const r = await rig('two', script)
      const other = path.join(r.dir, 'other')
      fs.mkdirSync(other)
      const a = await startTui(r)
      const b = await startTui(r, other)
      await submit(r, a, 'just answer')
      await submit(r, b, 'ask first')
      await r.tmux.waitFor(a, /Plain one\./)
      await r.tmux.waitFor(b, /Allow execution of \[Shell\]\?/)
      await until(r.env, (s) => is('needs_input', 'approval')(s) && s.cwd === other, 40_000, 'the second session at its dialog')
      const all = (await sessions(r.env)).filter(mine)
      expect(all).toHaveLength(2)
      expect(all.find((s) => s.cwd === r.work)).toMatchObject({reason: 'settled', state: 'needs_input'})
      expect(all.find((s) => s.cwd === other)).toMatchObject({reason: 'approval', state: 'needs_input'})
    }),
  )

  concurrentCase('bad_stream: a truncated stream and a garbage chunk; cast reads what the CLI wrote without crashing', () =>
    slot(async () => {
      const r = await rig('bad', [
        {kind: 'truncated', text: 'partial answer here'},
        {kind: 'garbage', text: 'garbage then the rest'},
      ])
      const pane = await startTui(r)
      await submit(r, pane, 'first')
      await r.tmux.waitFor(pane, /✕ \[API Error/)
      await until(r.env, is('needs_input', 'error'), 90_000, 'the truncated stream as an error')
      await submit(r, pane, 'second')
      await r.mock.waitMain(2, 60_000)
      // The CLI skips or fails on the garbage chunk; whatever it shows, cast lists the session at the user's move.
      await r.tmux.waitFor(pane, /the rest|✕|API Error/, 60_000)
      const s = await until(r.env, (x) => mine(x) && x.state === 'needs_input', 90_000, 'needs_input after the garbage chunk')
      expect(['settled', 'error']).toContain(s.reason)
      const res = await runCast(['explain', s.id], {env: r.env})
      expect(res.code, res.stderr).toBe(0)
    }),
  )

  /** kill -9 of the whole agent (the parent `node …/gemini` and its `--max-old-space-size` child), mid-turn. */
  const crash = (r: Rig, pane: AgentPane): void => {
    for (const p of [pane.pid, ...descendants(pane.pid)]) {
      try {
        process.kill(p, 'SIGKILL')
      } catch {
        /* gone */
      }
    }
  }

  concurrentCase('kill9: kill -9 mid-turn reads needs_input/dead within 2 s', () =>
    slot(async () => {
      const r = await rig('kill9', [{kind: 'stall', text: 'Thinking about it'}])
      // The watch runs from before the TUI starts, so it is live (its working line arrived) when the crash comes.
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'take your time')
      await r.mock.waitMain(1)
      await r.tmux.waitFor(pane, /esc to cancel/i)
      await until(r.env, is('working'), 60_000, 'working before the crash')
      await w.wait(lineIs('working'), 60_000)
      const killedAt = Date.now()
      crash(r, pane)
      const l = await w.wait(lineIs('needs_input', 'dead'), 60_000)
      const ms = l.at - killedAt
      recordFigure(AGENT, 'kill9', {dead_ms: ms})
      await until(r.env, is('needs_input', 'dead'), 10_000, 'needs_input/dead')
      expect(ms).toBeLessThanOrEqual(DEAD_BOUND_MS)
    }),
  )

  concurrentCase('kill9_unseen: a crash before cast ever looked reads needs_input/dead', () =>
    slot(async () => {
      const r = await rig('kill9u', [{kind: 'stall', text: 'Thinking about it'}])
      const pane = await startTui(r)
      await submit(r, pane, 'take your time')
      await r.mock.waitMain(1)
      await r.tmux.waitFor(pane, /esc to cancel/i)
      crash(r, pane)
      const first = (await sessions(r.env)).find(mine)
      expect([first?.state, first?.reason]).toEqual(['needs_input', 'dead'])
    }),
  )

  /** `gemini -p` as a script runs it: no terminal. */
  const headless = (r: Rig, prompt: string): ChildProcess => {
    const child = spawn(GEMINI, ['-p', prompt], {cwd: r.work, env: r.agentEnv, stdio: ['ignore', 'pipe', 'pipe']})
    let out = ''
    child.stdout!.on('data', (c) => (out += String(c)))
    ;(child as any).out = () => out
    atCaseEnd(cleanups, () => {
      try {
        process.kill(child.pid!, 'SIGKILL')
      } catch {
        /* gone */
      }
    })
    return child
  }

  concurrentCase('headless: `gemini -p` run to completion is needs_input/settled', () =>
    slot(async () => {
      const r = await rig('headless', [text('Headless answer.')])
      const child = headless(r, 'answer headless')
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)))
      expect(code).toBe(0)
      expect((child as any).out()).toContain('Headless answer.')
      const s = await until(r.env, is('needs_input', 'settled'), 90_000, 'the headless run settled')
      expect([s.title, s.messages, s.live]).toEqual(['answer headless', 2, false])
    }),
  )

  concurrentCase('headless_killed: `gemini -p` killed -9 mid-run reads needs_input/dead', () =>
    slot(async () => {
      const r = await rig('headlessk', [{kind: 'stall', text: 'Thinking'}])
      const child = headless(r, 'never finishes')
      await r.mock.waitMain(1, 90_000)
      await until(r.env, () => chatFiles(r).length === 1, 90_000, 'the chat file')
      await until(r.env, is('working'), 90_000, 'working mid-run')
      const gone = new Promise((resolve) => child.on('exit', resolve))
      for (const p of [child.pid!, ...descendants(child.pid!)]) process.kill(p, 'SIGKILL')
      await gone
      const killedAt = Date.now()
      await until(r.env, is('needs_input', 'dead'), 90_000, 'needs_input/dead')
      recordFigure(AGENT, 'headless_killed', {dead_ms: Date.now() - killedAt})
    }),
  )

  const approvalScript = (): Reply[] => [
    tool('run_shell_command', {command: 'echo ran > approved.txt', description: 'write a file'}),
    text('Wrote it.'),
  ]

  concurrentCase('approve: `cast approve` answers the dialog, the tool runs and the session moves on', () =>
    slot(async () => {
      const r = await rig('approve', approvalScript())
      const pane = await startTui(r)
      await submit(r, pane, 'write the file')
      await r.tmux.waitFor(pane, /Allow execution of \[Shell\]\?/)
      const s = await until(r.env, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      const res = await runCast(['approve', s.id], {env: r.env})
      expect(res.code, res.stdout + res.stderr).toBe(0)
      await r.tmux.waitFor(pane, /Wrote it\./)
      expect(fs.readFileSync(path.join(r.work, 'approved.txt'), 'utf8').trim()).toBe('ran')
      await until(r.env, is('needs_input', 'settled'), 90_000, 'settled after the tool ran')
    }),
  )

  concurrentCase('deny: `cast deny` closes the dialog and the tool does not run', () =>
    slot(async () => {
      const r = await rig('deny', approvalScript())
      const pane = await startTui(r)
      await submit(r, pane, 'write the file')
      await r.tmux.waitFor(pane, /Allow execution of \[Shell\]\?/)
      const s = await until(r.env, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      const res = await runCast(['deny', s.id], {env: r.env})
      expect(res.code, res.stdout + res.stderr).toBe(0)
      await r.tmux.waitFor(pane, READY)
      expect(r.tmux.capture(pane)).not.toMatch(/Allow execution of/)
      await sleep(2000)
      expect(fs.existsSync(path.join(r.work, 'approved.txt'))).toBe(false)
      const after = await until(
        r.env,
        (x) => mine(x) && x.state === 'needs_input' && x.reason !== 'approval',
        90_000,
        'the dialog gone from cast',
      )
      expect(after.reason).toBe('settled')
    }),
  )

  concurrentCase('send_refused: `cast send` into an open permission dialog exits 5 and the tool does not run', () =>
    slot(async () => {
      const r = await rig('sendref', approvalScript())
      const pane = await startTui(r)
      await submit(r, pane, 'write the file')
      await r.tmux.waitFor(pane, /Allow execution of \[Shell\]\?/)
      const s = await until(r.env, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      const res = await runCast(['send', s.id, 'typed into the dialog'], {env: r.env})
      expect(res.code, res.stdout + res.stderr).toBe(5)
      await sleep(2000)
      expect(r.tmux.capture(pane)).toMatch(/Allow execution of \[Shell\]\?/)
      expect(r.tmux.capture(pane)).not.toMatch(/typed into the dialog/)
      expect(fs.existsSync(path.join(r.work, 'approved.txt'))).toBe(false)
    }),
  )

  concurrentCase('approval (hooks): with `cast hooks install gemini` the dialog is needs_input/approval naming the command', () =>
    slot(async () => {
      const r = await rig('approvalh', approvalScript(), {hooks: true})
      const settings = JSON.parse(fs.readFileSync(path.join(r.home, '.gemini', 'settings.json'), 'utf8'))
      expect(JSON.stringify(settings.hooks.Notification)).toContain(HOOK_BIN)
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'write the file')
      await r.tmux.waitFor(pane, /Allow execution of \[Shell\]\?/)
      const shownAt = Date.now()
      await until(r.env, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      expect(await listing(r)).toMatch(/shell: echo ran > approved\.txt/)
      const l = await w.wait(lineIs('needs_input', 'approval'), 90_000)
      recordFigure(AGENT, 'approval (hooks)', {watch_ms: Math.max(0, l.at - shownAt)})
      const s = (await sessions(r.env)).find(mine)!
      const res = await runCast(['approve', s.id], {env: r.env})
      expect(res.code, res.stdout + res.stderr).toBe(0)
      await r.tmux.waitFor(pane, /Wrote it\./)
      await until(r.env, is('needs_input', 'settled'), 90_000, 'settled after the tool ran')
    }),
  )

  concurrentCase('question (hooks): an ask_user dialog is needs_input/question with the question as the ask', () =>
    slot(async () => {
      const r = await rig('questionh', [tool('ask_user', ask), text('Thanks.')], {hooks: true})
      const w = watch(r)
      const pane = await startTui(r)
      await submit(r, pane, 'ask me something')
      await r.tmux.waitFor(pane, /Answer Questions[\s\S]*Which colour should the button be\?/)
      const shownAt = Date.now()
      await until(r.env, is('needs_input', 'question'), 90_000, 'needs_input/question')
      expect(await listing(r)).toMatch(/asks: Which colour should the button be\?/)
      const l = await w.wait(lineIs('needs_input', 'question'), 90_000)
      recordFigure(AGENT, 'question (hooks)', {watch_ms: Math.max(0, l.at - shownAt)})
      // Answering it (1 = Red) ends the ask; the reply after it settles the turn.
      r.tmux.keys(pane, '1')
      await r.tmux.waitFor(pane, /Thanks\./)
      await until(r.env, is('needs_input', 'settled'), 90_000, 'settled after the answer')
    }),
  )

  concurrentCase('plain (hooks): an answered prompt is needs_input/settled', () =>
    slot(async () => {
      const r = await rig('plainh', [text('Hello with hooks.')], {hooks: true})
      const pane = await startTui(r)
      const fresh = await until(r.env, mine, 90_000, 'the fresh session')
      expect([fresh.state, fresh.messages]).toEqual(['idle', 0])
      // From the log's start: a watch that comes up slowly on a loaded machine misses nothing.
      const w = new Watch(r.env, ['--since', '0'])
      r.watches.push(w)
      await submit(r, pane, 'say hello')
      await r.tmux.waitFor(pane, /Hello with hooks\./)
      const shownAt = Date.now()
      await until(r.env, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
      const l = await w.wait(lineIs('needs_input', 'settled'), 90_000)
      recordFigure(AGENT, 'plain (hooks)', {watch_ms: Math.max(0, l.at - shownAt)})
    }),
  )
})
