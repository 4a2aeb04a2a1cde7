/**
 * The nudge on the real CLIs (issue 14, docs/hooks.md): `cast hooks install <agent>` installs a
 * Stop hook that, when a turn ends with no `cast state --status done|blocked|dormant` in it,
 * answers once in the agent's own protocol; the agent declares, and cast reads the declared
 * state. Also: a turn that declared on its own is never nudged, SessionStart adds the guidance
 * as context, and a presence change reaches a live session as context on its next prompt.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {type CastSession, runCast, until} from './harness/cast.js'
import {type Mock, type MockRequest, type Reply, type Script, startMock, text, tool} from './harness/mock/server.js'
import type {AgentPane} from './harness/tmux.js'
import {CLAUDE, type ClaudeHome, makeClaudeHome} from './claude_code/setup.js'
import {CODEX, type CodexHome, dropPackagesTemplate, makeCodexHome, trustHooks} from './codex/setup.js'

/** The first words of what the Stop hook answers (src/lib/ingest/turn-marks.ts NUDGE_REASON). */
const NUDGE = 'cast: this turn ended without saying who acts next'
/** The first words of the SessionStart guidance (AGENT_GUIDANCE). */
const GUIDANCE = 'This session is tracked by cast'
const PROMPT_READY = /manual mode on/
const cleanups: (() => Promise<void> | void)[] = []

afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c()
    } catch {
      /* best effort */
    }
  }

  dropPackagesTemplate()
})

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Every text a request carries (system, messages, inputs), as one string. */
function allText(req: MockRequest): string {
  return JSON.stringify(req.body ?? {})
}

/**
 * The model: answers the user's prompt with text (no declaration); when the nudge arrives,
 * declares with the command it names; after the declaration's result, a short closing text.
 * `declareFirst`: the agent declares on its own in the first reply (then no nudge may come).
 */
function nudgedModel(declare: (command: string) => Reply, opts: {declareFirst?: boolean; answer?: string} = {}): Script {
  return (req) => {
    if (req.side) return undefined
    const last = req.lastUserText
    if (req.toolResults > 0) return text('Declared.')
    if (last.includes(NUDGE)) return declare('cast state --status done "Answered the question about the project"')
    if (opts.declareFirst) return declare('cast state --status done "Answered on my own"')
    return text(opts.answer ?? 'The project has one README.')
  }
}

async function installHooks(env: Record<string, string>, agent: string): Promise<Record<string, unknown>> {
  const r = await runCast(['hooks', 'install', agent, '--json'], {env})
  expect(r.code, r.stderr).toBe(0)
  const out = JSON.parse(r.stdout) as Record<string, unknown>
  expect(out['nudge']).toBe(true)
  return out
}

/** The Stop answers the hook gave, as the markers record them (one `.nudged` per nudged turn). */
function nudgedMarks(castHome: string): string[] {
  try {
    return fs.readdirSync(path.join(castHome, 'turns')).filter((f) => f.endsWith('.nudged'))
  } catch {
    return []
  }
}

// ---------------------------------------------------------------------------------------------

describe('claude_code', () => {
  interface Run {
    readonly h: ClaudeHome
    readonly mock: Mock
    readonly pane: AgentPane
  }

  async function start(name: string, script: Script): Promise<Run> {
    const h = makeClaudeHome(`n${name}`)
    const mock = await startMock(script)
    let pane: AgentPane | undefined
    cleanups.push(async () => {
      if (pane) {
        try {
          process.kill(pane.pid, 'SIGKILL')
        } catch {
          /* gone */
        }
      }

      await mock.close()
      h.cleanup()
    })
    await installHooks(h.cast, 'claude-code')
    pane = h.tmux.open([CLAUDE, '--permission-mode', 'default', '--allowedTools', 'Bash(cast:*)'], {
      cwd: h.project,
      env: h.agentEnv(mock.url),
    })
    await h.tmux.waitFor(pane, PROMPT_READY, 60_000)
    return {h, mock, pane}
  }

  const bash = (command: string): Reply => tool('Bash', {command, description: 'declare who acts next'})
  const mine = (r: Run) => (s: CastSession) => s.agent === 'claude_code' && !s.parent_id && s.pid === r.pane.pid

  it('declared_done (hooks): a turn that ends undeclared is nudged exactly once, the agent declares and reads done/declared_done', async () => {
    const r = await start('once', nudgedModel(bash))
    // SessionStart's guidance is context from the first request on.
    r.h.tmux.type(r.pane, 'what is in this project?')
    await r.h.tmux.waitFor(r.pane, /Declared\./, 90_000)
    const s = await until(r.h.cast, (x) => mine(r)(x) && x.state === 'done' && x.reason === 'declared_done', 60_000, 'done/declared_done')
    expect(s.state_line).toMatchObject({status: 'done', text: 'Answered the question about the project'})
    const main = r.mock.requests.filter((q) => !q.side)
    // One prompt, one nudge, one declaration, one closing text: four model calls, no more.
    expect(main.map((q) => q.lastUserText.includes(NUDGE))).toEqual([false, true, false])
    // Claude Code 2.1.328 carries one Stop answer twice in the history: as the user message
    // "Stop hook feedback: …" and as a system line "Stop hook blocking error from command: …".
    const history = (main.at(-1)!.body.messages as {role: string; content: unknown}[]).filter((m) => m.role === 'user')
    expect(history.filter((m) => JSON.stringify(m.content).includes(NUDGE))).toHaveLength(1)
    expect(allText(main[0]!)).toContain(GUIDANCE)
    expect(nudgedMarks(r.h.castHome)).toHaveLength(1)
    // The turn stays done: no second nudge arrives later (the continuation's Stop carries stop_hook_active).
    await sleep(3000)
    expect(r.mock.requests.filter((q) => !q.side)).toHaveLength(3)
    const explain = await runCast(['explain', s.id], {env: r.h.cast})
    expect(explain.stdout).toMatch(/declar/i)
  })

  it('declared_done (hooks): a turn that declared on its own is not nudged', async () => {
    const r = await start('self', nudgedModel(bash, {declareFirst: true}))
    r.h.tmux.type(r.pane, 'do it and declare')
    await r.h.tmux.waitFor(r.pane, /Declared\./, 90_000)
    await until(r.h.cast, (x) => mine(r)(x) && x.state === 'done' && x.reason === 'declared_done', 60_000, 'done/declared_done')
    await sleep(3000)
    const main = r.mock.requests.filter((q) => !q.side)
    expect(main.some((q) => q.lastUserText.includes(NUDGE))).toBe(false)
    expect(main).toHaveLength(2)
    expect(nudgedMarks(r.h.castHome)).toHaveLength(0)
  })

  it('question (hooks): a turn that ends on a question to the user is not nudged and reads needs_input', async () => {
    const r = await start('ask', nudgedModel(bash, {answer: 'Should I use the blue theme or the red one?'}))
    r.h.tmux.type(r.pane, 'pick a theme')
    await r.h.tmux.waitFor(r.pane, /the red one\?/, 90_000)
    await until(r.h.cast, (x) => mine(r)(x) && x.state === 'needs_input' && x.reason === 'settled', 60_000, 'needs_input/settled')
    await sleep(3000)
    expect(r.mock.requests.filter((q) => !q.side)).toHaveLength(1)
    expect(nudgedMarks(r.h.castHome)).toHaveLength(0)
  })

  it('send (hooks): a presence change reaches the live session as context on its next prompt, and cast presence names it', async () => {
    const r = await start('presence', (req) =>
      req.side
        ? undefined
        : req.toolResults > 0
          ? text('Declared.')
          : req.lastUserText.includes(NUDGE)
            ? bash('cast state --status done "ok"')
            : text('Noted.'),
    )
    r.h.tmux.type(r.pane, 'first')
    await r.h.tmux.waitFor(r.pane, /Declared\./, 90_000)
    const s = await until(r.h.cast, (x) => mine(r)(x) && x.state === 'done', 60_000, 'done')
    const set = await runCast(['presence', 'away', '--json'], {env: r.h.cast})
    expect(set.code, set.stderr).toBe(0)
    const before = r.mock.requests.filter((q) => !q.side).length
    r.h.tmux.type(r.pane, 'second')
    await r.mock.waitMain(before + 1, 60_000)
    const next = r.mock.requests.filter((q) => !q.side)[before]!
    expect(allText(next)).toMatch(/presence is now away/i)
    await until(r.h.cast, (x) => mine(r)(x) && x.messages > s.messages, 60_000, 'the second turn')
    const read = await runCast(['presence', '--json'], {env: r.h.cast})
    expect(read.code, read.stderr).toBe(0)
    const told = (JSON.parse(read.stdout) as {told: {id: string; via: string}[]}).told
    expect(told.map((t) => t.id)).toContain(s.id)
  })

  it('send (hooks): cast presence away --notify-agents sends the notice at once to a session resting at its prompt', async () => {
    const r = await start('notify', (req) =>
      req.side
        ? undefined
        : req.toolResults > 0
          ? text('Declared.')
          : req.lastUserText.includes(NUDGE)
            ? bash('cast state --status done "ok"')
            : text('Noted.'),
    )
    r.h.tmux.type(r.pane, 'first')
    await r.h.tmux.waitFor(r.pane, /Declared\./, 90_000)
    const s = await until(r.h.cast, (x) => mine(r)(x) && x.state === 'done', 60_000, 'done')
    const before = r.mock.requests.filter((q) => !q.side).length
    const set = await runCast(['presence', 'away', '--notify-agents'], {env: r.h.cast})
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toMatch(/sent the notice to/)
    await r.mock.waitMain(before + 1, 60_000)
    expect(r.mock.requests.filter((q) => !q.side)[before]!.lastUserText).toMatch(/presence is now away/)
    const read = await runCast(['presence', '--json'], {env: r.h.cast})
    expect((JSON.parse(read.stdout) as {told: {id: string}[]}).told.map((t) => t.id)).toContain(s.id)
  })
})

// ---------------------------------------------------------------------------------------------

describe('codex', () => {
  it('declared_done (hooks): a turn that ends undeclared is nudged exactly once, the agent declares and reads done/declared_done', async () => {
    const shell = (command: string): Reply => tool('exec_command', {cmd: command, login: false, yield_time_ms: 20000})
    const mock = await startMock(nudgedModel(shell))
    const h: CodexHome = makeCodexHome('nudge', mock, {approval: 'never', sandbox: 'danger-full-access'})
    cleanups.push(async () => {
      await mock.close()
      h.cleanup()
    })
    await installHooks(h.cast, 'codex')
    // The prompt on the command line: the TUI submits it once the hooks are trusted.
    const pane = h.tmux.open([CODEX, 'what is in this project?'], {cwd: h.work, env: h.agentEnv})
    await trustHooks(h.tmux, pane)
    await h.tmux.waitFor(pane, /Declared\./, 120_000)
    const s = await until(
      h.cast,
      (x) => x.agent === 'codex' && !x.parent_id && x.state === 'done' && x.reason === 'declared_done',
      60_000,
      'done/declared_done',
    )
    expect(s.state_line).toMatchObject({status: 'done', text: 'Answered the question about the project'})
    const main = mock.requests.filter((q) => !q.side)
    // The Responses API's last user message stays the nudge while the declaration's output comes back.
    expect(main.filter((q) => q.lastUserText.includes(NUDGE) && q.toolResults === 0)).toHaveLength(1)
    const items = (main.at(-1)!.body.input as {role?: string}[]).filter((m) => m.role === 'user' && JSON.stringify(m).includes(NUDGE))
    expect(items).toHaveLength(1)
    expect(JSON.stringify(main[0]!.body)).toContain(GUIDANCE)
    expect(nudgedMarks(path.join(h.dir, 'cast'))).toHaveLength(1)
    await sleep(3000)
    expect(mock.requests.filter((q) => !q.side).length).toBe(main.length)
  })
})
