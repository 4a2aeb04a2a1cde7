/**
 * GitHub Copilot CLI 1.0.102, driven as a user drives it: the TUI in a private tmux pane, typed
 * with send-keys, against the mock model server (offline BYOK mode, chat completions). Each
 * scenario confirms the truth on the screen and in the agent's files, then checks cast one-shot
 * (`cast sessions --json`) and through a `cast sessions -w --json` started before the action.
 * Scenarios run side by side, each in its own HOME, tmux server and mock.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {type CastSession, DEAD_BOUND_MS, recordFigure, runCast, until, type Watch} from './harness/cast.js'
import {type MockRequest, type Reply, repeat, status, text, tool} from './harness/mock/server.js'
import type {AgentPane} from './harness/tmux.js'
import {alive, askOf, copilotSessions, headless, killTree, PROMPT, rig, type Rig, stopAll, waitUntil} from './copilot/rig.js'

afterAll(stopAll)

const isCop = (s: {agent?: string}): boolean => s.agent === 'copilot'
const bash = (command: string, description = 'Run a command', extra: Record<string, unknown> = {}): Reply =>
  tool('bash', {command, description, ...extra})

/** The watch line for the state, and cast one-shot agreeing; records how fast the line came. */
async function both(
  r: Rig,
  w: Watch,
  scenario: string,
  want: {state: string; reason: string},
  since: number,
  timeoutMs = 60_000,
  from = 0,
): Promise<CastSession> {
  const line = await w.wait((l) => isCop(l) && l.to === want.state && l.reason === want.reason, timeoutMs, from)
  recordFigure('copilot', scenario, {ms: line.at - since, what: `${want.state}/${want.reason} watch line after the truth`})
  return until(r.env, (s) => isCop(s) && s.state === want.state && s.reason === want.reason, timeoutMs, `${want.state}/${want.reason}`)
}

describe('copilot', () => {
  it.concurrent('fresh: a TUI with nothing asked yet is listed as new/idle, not working ($COPILOT_HOME honoured)', async () => {
    const r = await rig('fresh', [], {copilotHome: true})
    try {
      await r.open()
      // The truth: a session folder with workspace.yaml and the lock, no event log before the
      // first prompt (1.0.102 writes events.jsonl then).
      await waitUntil(() => r.sessionDirs().length === 1, 90_000, 'a session folder')
      expect(r.events().map((e) => e.type)).not.toContain('user.message')
      expect(fs.readdirSync(r.sessionDirs()[0]!).some((f) => /^inuse\.\d+\.lock$/.test(f))).toBe(true)
      expect(fs.existsSync(path.join(r.home, '.copilot', 'session-state'))).toBe(false)
      const s = await until(r.env, (x) => isCop(x), 90_000, 'the fresh session')
      expect(s).toMatchObject({bucket: 'new', messages: 0, state: 'idle'})
    } finally {
      await r.stop()
    }
  })

  it.concurrent('plain: an answer at the prompt reads needs_input/settled', async () => {
    const r = await rig('plain', [text('Hello from the mock.')])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'say hello')
      await r.tmux.waitFor(pane, /● Hello from the mock\.[\s\S]*← open sidebar/)
      const t = Date.now()
      expect(
        r
          .events()
          .map((e) => e.type)
          .at(-1),
      ).toBe('assistant.turn_end')
      const s = await both(r, w, 'plain', {reason: 'settled', state: 'needs_input'}, t)
      expect(s).toMatchObject({messages: 2, title: 'say hello'})
    } finally {
      await r.stop()
    }
  })

  it.concurrent('approval: the shell permission dialog reads needs_input/approval with the command', async () => {
    const r = await rig('approval', [bash('touch approved.txt', 'Touch a file'), text('Done.')])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'touch the file')
      await r.tmux.waitFor(pane, /Do you want to run this command\?[\s\S]*1\. Yes/)
      const t = Date.now()
      // Copilot writes permission.requested a moment after it draws the dialog.
      await waitUntil(() => r.events().some((e) => e.type === 'permission.requested'), 90_000, 'permission.requested in events.jsonl')
      const s = await both(r, w, 'approval', {reason: 'approval', state: 'needs_input'}, t)
      expect(await askOf(r.env, s)).toContain('touch approved.txt')
      // Esc declines: the tool never ran, the turn ends. 1.0.102 words it "cancelled" or, when Esc
      // lands while the dialog is still being drawn, "aborted"; the settled check below is the turn's end.
      r.tmux.keys(pane, 'Escape')
      await r.tmux.waitFor(pane, /Operation (?:cancelled|aborted) by user/)
      expect(fs.existsSync(path.join(r.work, 'approved.txt'))).toBe(false)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after Esc')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('question: an ask_user form reads needs_input/question, the ask is the question', async () => {
    const q = 'Which colour should the button be?'
    const r = await rig('question', [
      tool('ask_user', {
        message: q,
        requestedSchema: {properties: {colour: {enum: ['red', 'blue'], type: 'string'}}, required: ['colour']},
      }),
      text('Red it is.'),
    ])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'pick a colour')
      await r.tmux.waitFor(pane, /Copilot needs information\.\s*\n\s*Which colour/)
      const t = Date.now()
      const s = await both(r, w, 'question', {reason: 'question', state: 'needs_input'}, t)
      expect(await askOf(r.env, s)).toContain(q)
      expect(await askOf(r.env, s)).not.toMatch(/approve|ask_user/i)
      r.tmux.keys(pane, 'Enter')
      await r.tmux.waitFor(pane, /Red it is\.[\s\S]*← open sidebar/)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after the answer')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('kill9: kill -9 mid-turn reads needs_input/dead within 2 s', async () => {
    const r = await rig('kill9', [bash('sleep 120', 'Sleep long')], {args: ['--allow-all-tools'], exclusive: true})
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'sleep for a while')
      await r.tmux.waitFor(pane, /Working/)
      await w.wait((l) => isCop(l) && l.to === 'working', 90_000)
      // Mid-turn in Copilot's own file too: the prompt is in events.jsonl (it can lag the screen).
      await until(r.env, (x) => isCop(x) && x.messages >= 1 && x.state === 'working', 90_000, 'the prompt in events.jsonl')
      const killed = killTree(pane.pid)
      const t = Date.now()
      await waitUntil(() => killed.every((p) => !alive(p)), 10_000, 'the agent gone')
      const line = await w.wait((l) => isCop(l) && l.to === 'needs_input' && l.reason === 'dead', 90_000)
      recordFigure('copilot', 'kill9', {ms: line.at - t, what: 'needs_input/dead watch line after kill -9'})
      expect(line.at - t).toBeLessThanOrEqual(DEAD_BOUND_MS)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'dead', 10_000, 'dead one-shot')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('kill9: kill -9 with the permission dialog open reads needs_input/dead, not approval', async () => {
    const r = await rig('kill9a', [bash('touch never.txt', 'Touch a file')], {exclusive: true})
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'touch the file')
      await r.tmux.waitFor(pane, /Do you want to run this command\?/)
      await w.wait((l) => isCop(l) && l.reason === 'approval', 60_000)
      const killed = killTree(pane.pid)
      const t = Date.now()
      await waitUntil(() => killed.every((p) => !alive(p)), 10_000, 'the agent gone')
      // The log still holds the open permission.requested; the process is what is gone.
      expect(r.events().some((e) => e.type === 'permission.completed')).toBe(false)
      const line = await w.wait((l) => isCop(l) && l.to === 'needs_input' && l.reason === 'dead', 90_000)
      recordFigure('copilot', 'kill9', {ms: line.at - t, what: 'needs_input/dead watch line after kill -9 in an open dialog'})
      expect(line.at - t).toBeLessThanOrEqual(DEAD_BOUND_MS)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'dead', 10_000, 'dead one-shot')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('kill9_unseen: a crash before cast first looks reads needs_input/dead', async () => {
    const r = await rig('kill9u', [bash('sleep 120', 'Sleep long')], {args: ['--allow-all-tools']})
    try {
      const pane = await r.open()
      r.tmux.type(pane, 'sleep for a while')
      await r.tmux.waitFor(pane, /Working/)
      await waitUntil(() => r.events().some((e) => e.type === 'tool.execution_start'), 90_000, 'the tool running')
      const killed = killTree(pane.pid)
      await waitUntil(() => killed.every((p) => !alive(p)), 10_000, 'the agent gone')
      const t = Date.now()
      const s = (await copilotSessions(r.env))[0]
      recordFigure('copilot', 'kill9_unseen', {ms: Date.now() - t, what: 'first cast sessions after the crash'})
      expect(s).toMatchObject({reason: 'dead', state: 'needs_input'})
    } finally {
      await r.stop()
    }
  })
  it.concurrent('long_command: a 25 s shell command reads working the whole time', async () => {
    const r = await rig('long', [bash('sleep 25; echo slept', 'Sleep a while'), text('The command finished.')], {
      args: ['--allow-all-tools'],
    })
    try {
      const pane = await r.open()
      r.tmux.type(pane, 'run the slow command')
      await r.tmux.waitFor(pane, /Working/)
      await until(r.env, (x) => isCop(x) && x.state === 'working', 90_000, 'working')
      const seen: string[] = []
      // Every look while the command runs (the screen still busy, the reply not in) is working.
      while (!/The command finished\./.test(r.tmux.capture(pane))) {
        const s = (await copilotSessions(r.env))[0]
        const done = /The command finished\./.test(r.tmux.capture(pane))
        if (!done && s) seen.push(`${s.state}/${s.reason}`)
        await new Promise((res) => setTimeout(res, 1000))
      }
      // At least one look while it ran (a loaded machine gets fewer in): each one working.
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.filter((x) => !x.startsWith('working/'))).toEqual([])
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after')
    } finally {
      await r.stop()
    }
  })

  it.concurrent(
    'background_command: a shell still running after the turn reads dormant/background_work, its wake-up turn working',
    async () => {
      const r = await rig(
        'bg',
        [
          bash('sleep 40; echo finished', 'Sleep in the background'),
          text('It keeps running in the background.'),
          text('The background command finished and printed its output.', {chunks: 12, delayMs: 700}),
        ],
        {args: ['--allow-all-tools']},
      )
      try {
        const pane = await r.open()
        const w = r.watch()
        r.tmux.type(pane, 'run it in the background')
        await r.tmux.waitFor(pane, /Waiting for background shells/, 90_000)
        const t = Date.now()
        expect(
          r.events().some((e) => e.type === 'tool.execution_complete' && /is still running/.test(String(e.data?.result?.content))),
        ).toBe(true)
        const s = await both(r, w, 'background_command', {reason: 'background_work', state: 'dormant'}, t)
        expect(s.background_work).toBeTruthy()
        // The shell ends: Copilot starts a turn by itself (system.notification, no user.message).
        const from = w.lines.length
        await w.wait((l) => isCop(l) && l.to === 'working', 60_000, from)
        expect(r.events().some((e) => e.type === 'system.notification' && e.data?.kind?.type === 'shell_completed')).toBe(true)
        await r.tmux.waitFor(pane, /printed its output\.[\s\S]*← open sidebar/, 60_000)
        await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after the wake-up turn')
        expect(r.events().filter((e) => e.type === 'user.message')).toHaveLength(1)
      } finally {
        await r.stop()
      }
    },
  )

  it.concurrent(
    'background_subagent: a background task agent still running with the parent at its prompt reads dormant/child_producing',
    async () => {
      let parentRequests = 0
      const script = (req: MockRequest): Reply | undefined => {
        if (req.side) return undefined
        if (/SUBAGENT-TASK/.test(req.lastUserText)) return text('The subagent finished its research.', {chunks: 20, delayMs: 1000})
        parentRequests++
        if (parentRequests === 1)
          return tool('task', {
            agent_type: 'general-purpose',
            description: 'Research the thing',
            mode: 'background',
            name: 'researcher',
            prompt: 'SUBAGENT-TASK: research the thing',
          })
        return text(parentRequests === 2 ? 'Started a background agent.' : 'The agent reported back.')
      }
      const r = await rig('bgsub', script, {args: ['--allow-all-tools']})
      try {
        const pane = await r.open()
        const w = r.watch()
        r.tmux.type(pane, 'start a background agent')
        await r.tmux.waitFor(pane, /Started a background agent\.[\s\S]*Waiting for background agents/, 60_000)
        const t = Date.now()
        expect(r.events().find((e) => e.type === 'subagent.started')?.data).toMatchObject({executionMode: 'background'})
        expect(r.events().some((e) => e.type === 'subagent.completed')).toBe(false)
        await both(r, w, 'background_subagent', {reason: 'child_producing', state: 'dormant'}, t)
        // The agent finishes: an agent_idle notification wakes the parent, which answers by itself.
        await r.tmux.waitFor(pane, /The agent reported back\.[\s\S]*← open sidebar/, 90_000)
        expect(r.events().some((e) => e.type === 'system.notification' && e.data?.kind?.type === 'agent_idle')).toBe(true)
        await until(
          r.env,
          (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled',
          90_000,
          'settled after the agent reported',
        )
      } finally {
        await r.stop()
      }
    },
  )

  it.concurrent('retrying: a turn whose requests fail with 500 and are retried reads working', async () => {
    const r = await rig('retry', [...repeat(status(500), 3), text('Recovered after retries.')])
    try {
      const pane = await r.open()
      const w = r.watch()
      const typedAt = Date.now()
      r.tmux.type(pane, 'hello')
      await r.tmux.waitFor(pane, /transient API error\. Retrying/)
      const t = Date.now()
      const s = await until(r.env, (x) => isCop(x) && x.state === 'working', 90_000, 'working while the screen shows Retrying')
      recordFigure('copilot', 'retrying', {ms: Date.now() - t, what: 'one-shot while the screen shows Retrying'})
      expect(s.state).toBe('working')
      await r.tmux.waitFor(pane, /Recovered after retries\.[\s\S]*← open sidebar/, 60_000)
      // Nothing but working from the prompt to the answer: the retries never read as the user's move.
      const settledAt = (await w.wait((l) => isCop(l) && l.to === 'needs_input', 60_000)).at
      const cop = w.lines.filter((l) => isCop(l.line) && Date.parse(l.line.ts) >= typedAt - 1000)
      const start = cop.findIndex((l) => l.line.to === 'working')
      const between = cop.slice(start).filter((l) => l.at < settledAt)
      expect(between.filter((l) => l.line.to !== 'working').map((l) => `${l.line.to}/${l.line.reason}`)).toEqual([])
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after the retries')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('error: retries exhausted (500 six times) read needs_input/error with the banner', async () => {
    const r = await rig('err500', repeat(status(500), 8))
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'hello')
      await r.tmux.waitFor(pane, /Failed to get response from the AI model/, 90_000)
      const t = Date.now()
      expect(r.events().find((e) => e.type === 'session.error')?.data).toMatchObject({errorType: 'query', statusCode: 500})
      const s = await both(r, w, 'error', {reason: 'error', state: 'needs_input'}, t)
      expect(await askOf(r.env, s)).toMatch(/Failed to get response from the AI model/)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('error: a 401 (a hard error, not retried) reads needs_input/error', async () => {
    const r = await rig('err401', repeat(status(401), 4))
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'hello')
      await waitUntil(() => r.events().some((e) => e.type === 'session.error'), 60_000, 'session.error')
      const t = Date.now()
      expect(r.events().find((e) => e.type === 'session.error')?.data).toMatchObject({statusCode: 401})
      await r.tmux.waitFor(pane, PROMPT)
      await both(r, w, 'error', {reason: 'error', state: 'needs_input'}, t)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('error: a 429 rate limit, retries spent, reads needs_input/error', async () => {
    const r = await rig('err429', repeat(status(429, {'retry-after': '0'}), 8))
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'hello')
      await waitUntil(() => r.events().some((e) => e.type === 'session.error'), 120_000, 'session.error')
      const t = Date.now()
      expect(r.events().find((e) => e.type === 'session.error')?.data).toMatchObject({statusCode: 429})
      await r.tmux.waitFor(pane, PROMPT)
      await both(r, w, 'error', {reason: 'error', state: 'needs_input'}, t)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('declared_done: the agent runs `cast state --status done` and reads done/declared_done', async () => {
    const r = await rig('done', [bash('cast state --status done "Shipped the fix"', 'Tell cast it is done'), text('All done.')], {
      args: ['--allow-all-tools'],
    })
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'finish up')
      await r.tmux.waitFor(pane, /All done\.[\s\S]*← open sidebar/, 60_000)
      const t = Date.now()
      const out = r.events().find((e) => e.type === 'tool.execution_complete')?.data
      expect(out?.success).toBe(true)
      const s = await both(r, w, 'declared_done', {reason: 'declared_done', state: 'done'}, t)
      expect(JSON.stringify(s.state_line)).toContain('Shipped the fix')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('headless: `copilot -p` run to completion reads needs_input/settled', async () => {
    const r = await rig('headless', [text('Headless answer.')])
    try {
      const run = headless(r, 'answer headless')
      expect(await run.done).toBe(0)
      expect(run.output()).toContain('Headless answer.')
      expect(
        r
          .events()
          .map((e) => e.type)
          .at(-1),
      ).toBe('session.shutdown')
      const s = await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled')
      expect(s).toMatchObject({messages: 2, title: 'answer headless'})
    } finally {
      await r.stop()
    }
  })

  it.concurrent('headless_killed: `copilot -p` killed mid-run reads needs_input/dead', async () => {
    const r = await rig('headlessk', [{kind: 'stall', text: 'Thinking about it'}], {exclusive: true})
    try {
      const w = r.watch()
      const run = headless(r, 'answer slowly')
      await r.mock.waitMain(1, 60_000)
      await waitUntil(() => r.events().some((e) => e.type === 'assistant.turn_start'), 90_000, 'the turn started')
      await w.wait((l) => isCop(l) && l.to === 'working', 60_000)
      const killed = killTree(run.pid!)
      const t = Date.now()
      await run.done
      await waitUntil(() => killed.every((p) => !alive(p)), 10_000, 'the agent gone')
      const line = await w.wait((l) => isCop(l) && l.to === 'needs_input' && l.reason === 'dead', 90_000)
      recordFigure('copilot', 'headless_killed', {ms: line.at - t, what: 'needs_input/dead watch line after kill -9'})
      expect(line.at - t).toBeLessThanOrEqual(DEAD_BOUND_MS)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'dead', 10_000, 'dead one-shot')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('send: `cast send` at the prompt arrives as the next turn', async () => {
    const r = await rig('send', [text('First answer.'), text('Second answer.')])
    try {
      const pane = await r.open()
      r.tmux.type(pane, 'first question')
      await r.tmux.waitFor(pane, /First answer\.[\s\S]*← open sidebar/)
      const s = await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled')
      const w = r.watch()
      const t0 = Date.now()
      const sent = await runCast(['send', s.id, 'the second question'], {env: r.env, timeout: 90_000})
      expect(sent.code, sent.stderr).toBe(0)
      await r.tmux.waitFor(pane, /Second answer\.[\s\S]*← open sidebar/, 60_000)
      expect(r.mock.requests.filter((q) => !q.side).at(-1)?.lastUserText).toContain('the second question')
      await w.wait((l) => isCop(l) && l.to === 'working' && Date.parse(l.ts) >= t0 - 1000, 60_000)
      const after = await until(
        r.env,
        (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled' && x.messages === 4,
        90_000,
        'settled after the sent turn',
      )
      expect(after.id).toBe(s.id)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('two_sessions: two TUIs in one home each keep their own state', async () => {
    const script = (req: MockRequest): Reply | undefined => {
      if (req.side) return undefined
      if (/slow one/.test(req.lastUserText)) return req.toolResults > 0 ? text('Slow one done.') : bash('sleep 30', 'Sleep')
      return text('Quick one done.')
    }
    const r = await rig('two', script, {args: ['--allow-all-tools']})
    try {
      const a = await r.open()
      r.tmux.type(a, 'the slow one')
      await r.tmux.waitFor(a, /Working/)
      const b = await r.open()
      r.tmux.type(b, 'the quick one')
      await r.tmux.waitFor(b, /Quick one done\.[\s\S]*← open sidebar/)
      const end = Date.now() + 90_000
      let both2: {slow?: CastSession; quick?: CastSession} = {}
      while (Date.now() < end) {
        const list = await copilotSessions(r.env)
        both2 = {quick: list.find((x) => x.title === 'the quick one'), slow: list.find((x) => x.title === 'the slow one')}
        if (both2.quick?.reason === 'settled' && both2.slow?.state === 'working') break
        await new Promise((res) => setTimeout(res, 500))
      }
      expect(both2.slow).toMatchObject({state: 'working'})
      expect(both2.quick).toMatchObject({reason: 'settled', state: 'needs_input'})
      expect(both2.slow!.id).not.toBe(both2.quick!.id)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('bad_stream: a truncated stream and a garbage chunk; cast reads what Copilot wrote', async () => {
    const r = await rig('bad', [
      {kind: 'truncated', text: 'Half an answer'},
      {kind: 'garbage', text: 'An answer with garbage inside.'},
      ...repeat(text('Recovered.'), 6),
    ])
    try {
      const pane = await r.open()
      r.tmux.type(pane, 'tell me something')
      await r.tmux.waitFor(pane, /← open sidebar[\s\S]*$/)
      await waitUntil(
        () =>
          ['assistant.turn_end', 'session.error'].includes(
            r
              .events()
              .map((e) => e.type)
              .filter((x) => x !== 'session.usage_record')
              .at(-1) ?? '',
          ),
        90_000,
        'the turn over',
      )
      await r.tmux.waitFor(pane, PROMPT)
      const types = r.events().map((e) => e.type)
      const errored = types.lastIndexOf('session.error') > types.lastIndexOf('user.message')
      const want = errored ? 'error' : 'settled'
      const s = await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === want, 90_000, `needs_input/${want}`)
      recordFigure('copilot', 'bad_stream', {
        ms: 0,
        what: `the turn ended ${errored ? 'in session.error' : 'with a reply'} after ${r.mock.mainCount()} requests`,
      })
      expect(s.agent).toBe('copilot')
    } finally {
      await r.stop()
    }
  })
  /** A TUI with its shell permission dialog open, and cast showing it. */
  async function dialogOpen(name: string, command: string): Promise<{r: Rig; pane: AgentPane; s: CastSession}> {
    const r = await rig(name, [bash(command, 'Touch a file'), text('Moved on.')])
    const pane = await r.open()
    r.tmux.type(pane, 'touch the file')
    await r.tmux.waitFor(pane, /Do you want to run this command\?[\s\S]*1\. Yes/)
    const s = await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'approval', 60_000, 'approval')
    return {pane, r, s}
  }

  it.concurrent('approve: `cast approve` answers Yes in the dialog; the tool runs and the turn moves on', async () => {
    const {r, pane, s} = await dialogOpen('approve', 'touch approved.txt')
    try {
      const out = await runCast(['approve', s.id], {env: r.env, timeout: 90_000})
      expect(out.code, out.stderr + out.stdout).toBe(0)
      await waitUntil(() => fs.existsSync(path.join(r.work, 'approved.txt')), 90_000, 'the tool ran')
      await r.tmux.waitFor(pane, /Moved on\.[\s\S]*← open sidebar/, 60_000)
      expect(r.events().find((e) => e.type === 'permission.completed')?.data?.result).toMatchObject({kind: 'approved'})
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after approve')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('deny: `cast deny` declines; the tool does not run', async () => {
    const {r, pane, s} = await dialogOpen('deny', 'touch denied.txt')
    try {
      const out = await runCast(['deny', s.id], {env: r.env, timeout: 90_000})
      expect(out.code, out.stderr + out.stdout).toBe(0)
      await r.tmux.waitFor(pane, /← open sidebar/, 60_000)
      expect(fs.existsSync(path.join(r.work, 'denied.txt'))).toBe(false)
      expect(r.events().some((e) => e.type === 'tool.execution_complete' && e.data?.success === true)).toBe(false)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after deny')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('deny: `cast deny --note` declines and hands Copilot the note', async () => {
    const {r, pane, s} = await dialogOpen('denynote', 'touch noted.txt')
    try {
      const out = await runCast(['deny', s.id, '--note', 'use mkdir instead'], {env: r.env, timeout: 90_000})
      expect(out.code, out.stderr + out.stdout).toBe(0)
      await r.tmux.waitFor(pane, /User feedback: use mkdir instead/, 60_000)
      expect(fs.existsSync(path.join(r.work, 'noted.txt'))).toBe(false)
      expect(r.events().find((e) => e.type === 'permission.completed')?.data?.result).toMatchObject({
        feedback: 'use mkdir instead',
        kind: 'denied-interactively-by-user',
      })
    } finally {
      await r.stop()
    }
  })

  it.concurrent('send_refused: `cast send` into an open permission dialog exits 5 and types nothing', async () => {
    const {r, pane, s} = await dialogOpen('sendref', 'touch refused.txt')
    try {
      const out = await runCast(['send', s.id, 'hello there'], {env: r.env, timeout: 90_000})
      expect(out.code, out.stderr + out.stdout).toBe(5)
      const screen = await r.tmux.waitFor(pane, /Do you want to run this command\?/)
      expect(screen).not.toContain('hello there')
      expect(fs.existsSync(path.join(r.work, 'refused.txt'))).toBe(false)
      expect(r.events().some((e) => e.type === 'permission.completed')).toBe(false)
    } finally {
      await r.stop()
    }
  })
  /** A rig with `cast hooks install copilot` done first (as a user would, before starting the TUI). */
  async function hooked(name: string, replies: readonly Reply[], args: readonly string[] = [], exclusive = false): Promise<Rig> {
    const r = await rig(name, replies, {args, exclusive})
    const out = await runCast(['hooks', 'install', 'copilot'], {env: r.env, timeout: 90_000})
    expect(out.code, out.stderr).toBe(0)
    const file = JSON.parse(fs.readFileSync(path.join(r.base, 'hooks', 'cast.json'), 'utf8'))
    expect(JSON.stringify(file.hooks.SessionStart)).toContain('cast-hook')
    return r
  }

  /** cast heard from the hooks: explain names a hook source. */
  async function heardHooks(r: Rig, s: CastSession): Promise<void> {
    const ex = await runCast(['explain', s.id], {env: r.env})
    expect(ex.stdout).toMatch(/hook/i)
  }

  it.concurrent('plain (hooks): an answer at the prompt reads needs_input/settled', async () => {
    const r = await hooked('hplain', [text('Hello with hooks.')])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'say hello')
      await r.tmux.waitFor(pane, /Hello with hooks\.[\s\S]*← open sidebar/)
      const s = await both(r, w, 'plain (hooks)', {reason: 'settled', state: 'needs_input'}, Date.now())
      await heardHooks(r, s)
    } finally {
      await r.stop()
    }
  })

  it.concurrent('approval (hooks): the permission dialog reads needs_input/approval', async () => {
    const r = await hooked('happroval', [bash('touch hooked.txt', 'Touch a file'), text('Done.')])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'touch the file')
      await r.tmux.waitFor(pane, /Do you want to run this command\?[\s\S]*1\. Yes/)
      const s = await both(r, w, 'approval (hooks)', {reason: 'approval', state: 'needs_input'}, Date.now())
      expect(await askOf(r.env, s)).toContain('touch')
      await heardHooks(r, s)
      r.tmux.keys(pane, '1', 'Enter')
      await waitUntil(() => fs.existsSync(path.join(r.work, 'hooked.txt')), 90_000, 'the tool ran')
      await r.tmux.waitFor(pane, /Done\.[\s\S]*← open sidebar/, 60_000)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after the approval')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('question (hooks): an ask_user form reads needs_input/question, the ask is the question', async () => {
    const q = 'Which colour should the button be?'
    const r = await hooked('hquestion', [
      tool('ask_user', {
        message: q,
        requestedSchema: {properties: {colour: {enum: ['red', 'blue'], type: 'string'}}, required: ['colour']},
      }),
      text('Red it is.'),
    ])
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'pick a colour')
      await r.tmux.waitFor(pane, /Copilot needs information\.\s*\n\s*Which colour/)
      const s = await both(r, w, 'question (hooks)', {reason: 'question', state: 'needs_input'}, Date.now())
      expect(await askOf(r.env, s)).toContain(q)
      r.tmux.keys(pane, 'Enter')
      await r.tmux.waitFor(pane, /Red it is\.[\s\S]*← open sidebar/)
      await until(r.env, (x) => isCop(x) && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'settled after the answer')
    } finally {
      await r.stop()
    }
  })

  it.concurrent('kill9 (hooks): kill -9 mid-turn reads needs_input/dead within 2 s', async () => {
    const r = await hooked('hkill9', [bash('sleep 120', 'Sleep long')], ['--allow-all-tools'], true)
    try {
      const pane = await r.open()
      const w = r.watch()
      r.tmux.type(pane, 'sleep for a while')
      await r.tmux.waitFor(pane, /Working/)
      await w.wait((l) => isCop(l) && l.to === 'working', 90_000)
      const killed = killTree(pane.pid)
      const t = Date.now()
      await waitUntil(() => killed.every((p) => !alive(p)), 10_000, 'the agent gone')
      const line = await w.wait((l) => isCop(l) && l.to === 'needs_input' && l.reason === 'dead', 90_000)
      recordFigure('copilot', 'kill9 (hooks)', {ms: line.at - t, what: 'needs_input/dead watch line after kill -9'})
      expect(line.at - t).toBeLessThanOrEqual(DEAD_BOUND_MS)
    } finally {
      await r.stop()
    }
  })
})
