/**
 * Conformance: the real Codex CLI 0.169.0 (devDependency @openai/codex), driven in a private
 * tmux server against the project's mock Responses server, checked against cast one-shot
 * (`cast sessions --json`) and through a running `cast sessions -w --json`.
 * What Codex writes and shows at this version: docs/agents/codex.md.
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {type CastSession, DEAD_BOUND_MS, recordFigure, runCast, sessions, until, Watch} from './harness/cast.js'
import {type Mock, type Reply, sequence, startMock, status, text, tool} from './harness/mock/server.js'
import {BIN} from '../helpers/cli.js'
import {
  type CodexHome,
  CODEX,
  CODEX_VERSION,
  dropPackagesTemplate,
  killUnder,
  makeCodexHome,
  pidsUnder,
  trustHooks,
  tuiPid,
} from './codex/setup.js'

const AGENT = 'codex'
const homes: CodexHome[] = []
const mocks: Mock[] = []
const watches: Watch[] = []

afterAll(async () => {
  for (const w of watches) await w.stop()
  for (const h of homes) h.cleanup()
  for (const m of mocks) await m.close()
  dropPackagesTemplate()
})

async function setup(
  name: string,
  replies: readonly Reply[],
  opts: Parameters<typeof makeCodexHome>[2] = {},
): Promise<{h: CodexHome; mock: Mock}> {
  // One scenario's processes at a time: the last scenario's TUI, daemon and watch go first.
  for (const w of watches.splice(0)) await w.stop()
  for (const x of homes.splice(0)) x.cleanup()
  const mock = await startMock(sequence(replies), process.env.CODEX_MOCK_LOG ? {log: (l) => console.log(`[${name}] ${l}`)} : {})
  mocks.push(mock)
  const h = makeCodexHome(name, mock, opts)
  homes.push(h)
  return {h, mock}
}

function watch(h: CodexHome): Watch {
  const w = new Watch(h.cast)
  watches.push(w)
  return w
}

const codexRows = async (h: CodexHome): Promise<CastSession[]> => (await sessions(h.cast)).filter((s) => s.agent === AGENT)
const is = (state: string, reason?: string) => (s: CastSession) =>
  s.agent === AGENT && s.state === state && (reason === undefined || s.reason === reason)
const lineIs = (state: string, reason?: string) => (l: Record<string, any>) =>
  l.agent === AGENT && l.to === state && (reason === undefined || l.reason === reason)

/** Wait until a rollout line satisfies `ok` (the screen can show a turn's end before the file has it). */
async function fileLine(h: CodexHome, ok: (l: Record<string, any>) => boolean, timeoutMs = 90_000): Promise<Record<string, any>> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const hit = h.lines().find(ok)
    if (hit) return hit
    if (Date.now() > end) throw new Error(`no rollout line matched within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** Give the watch's ingester its first pass before the action, so arrival times measure the action. */
async function settleWatch(w: Watch, h: CodexHome): Promise<void> {
  // The one-shot sync and the watch share the store; one sessions call proves the store is ready.
  await sessions(h.cast)
  await w.ready()
}

/** The pane the screen sweep tied to a session (`cast explain` lists the screen reading among its files). */
function screenTie(h: CodexHome, nativeId: string): string | null {
  const out = execFileSync(process.execPath, [BIN, 'explain', nativeId], {encoding: 'utf8', env: {...process.env, ...h.cast}})
  return /screen:\/\/tmux\S*\/(%\d+)/.exec(out)?.[1] ?? null
}

const paneOf = (s: CastSession): string | null => (s as CastSession & {pane?: string | null}).pane ?? null

describe(AGENT, () => {
  it('fresh: a TUI with nothing asked is not working', async () => {
    const {h} = await setup('fresh', [text('unused')])
    const pane = await h.tui()
    expect(h.tmux.capture(pane)).toContain(`OpenAI Codex (v${CODEX_VERSION})`)
    const rows = await codexRows(h)
    // 0.169 writes no rollout before the first prompt: nothing to list, and nothing working.
    expect(rows.filter((s) => s.state === 'working')).toEqual([])
    for (const s of rows) expect(['idle', 'needs_input']).toContain(s.state)
  })

  it('plain: a finished answer reads needs_input/settled (one-shot and watch)', async () => {
    const {h} = await setup('plain', [text('Hello from the mock.')])
    const w = watch(h)
    await settleWatch(w, h)
    const pane = await h.tui(['say hello'])
    await h.tmux.waitFor(pane, /Hello from the mock\./)
    await h.tmux.waitFor(pane, /Worked for/)
    const seen = Date.now()
    await fileLine(h, (l) => l.payload?.type === 'task_complete')
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
    expect(s.messages).toBe(2)
    const line = await w.wait(lineIs('needs_input', 'settled'), 90_000)
    recordFigure(AGENT, 'plain', {watch_ms: Math.max(0, line.at - seen)})
    // The title side thread is not a session of its own.
    expect((await codexRows(h)).length).toBe(1)
  })

  it('approval: an escalated command waiting on the dialog reads needs_input/approval', async () => {
    const {h} = await setup('approval', [
      tool('exec_command', {
        cmd: 'touch ../outside-approval',
        justification: 'Write outside the workspace?',
        sandbox_permissions: 'require_escalated',
      }),
      text('Done.'),
    ])
    const w = watch(h)
    await settleWatch(w, h)
    const pane = await h.tui(['make the file'])
    await h.tmux.waitFor(pane, /Would you like to run the following command\?/)
    const seen = Date.now()
    // The rollout holds only the function_call asking for escalation, no output.
    const calls = h.lines().filter((l) => l.payload?.type === 'function_call')
    expect(calls.at(-1)?.payload.arguments).toContain('require_escalated')
    expect(h.lines().some((l) => l.payload?.type === 'function_call_output')).toBe(false)
    const s = await until(h.cast, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
    expect((await runCast(['explain', s.id], {env: h.cast})).stdout).toContain('touch ../outside-approval')
    const line = await w.wait(lineIs('needs_input', 'approval'), 90_000)
    recordFigure(AGENT, 'approval', {watch_ms: Math.max(0, line.at - seen)})
  })

  it('approval_unseen: with no hooks and no screen, the escalated command in the rollout is needs_input/approval', async () => {
    const {h} = await setup('apprunseen', [
      tool('exec_command', {
        cmd: 'touch ../outside-unseen',
        justification: 'Write outside the workspace?',
        sandbox_permissions: 'require_escalated',
      }),
      text('Done.'),
    ])
    // cast looks for tmux servers in a folder of its own: the TUI's pane is out of its sight.
    const blind = {...h.cast, TMUX_TMPDIR: fs.mkdtempSync(`${h.dir}/no-tmux-`)}
    const pane = await h.tui(['make the file'])
    await h.tmux.waitFor(pane, /Would you like to run the following command\?/)
    const rollout = h.rollouts().at(-1)!
    if (process.env.CODEX_KEEP_ROLLOUT) fs.copyFileSync(rollout, process.env.CODEX_KEEP_ROLLOUT)
    const s = await until(blind, is('needs_input', 'approval'), 90_000, 'needs_input/approval from the rollout alone')
    expect(s.pane ?? null).toBeNull()
    expect((await runCast(['explain', s.id], {env: blind})).stdout).toContain('touch ../outside-unseen')
    // Answered in the TUI: the command runs, its output closes the request.
    await new Promise((r) => setTimeout(r, 1000))
    h.tmux.keys(pane, 'y')
    await h.tmux.waitFor(pane, /Done\./)
    await until(blind, is('needs_input', 'settled'), 90_000, 'settled once approved')
  })

  it('long_command: a command that runs for seconds reads working the whole time', async () => {
    const {h} = await setup('long', [tool('exec_command', {cmd: 'sleep 9 && echo slept', yield_time_ms: 30000}), text('It slept.')])
    const pane = await h.tui(['sleep a while'])
    await h.tmux.waitFor(pane, /Working \(/)
    const states: string[] = []
    while (!/It slept\./.test(h.tmux.capture(pane))) {
      const rows = await codexRows(h)
      if (/It slept\./.test(h.tmux.capture(pane))) break
      states.push(rows.map((s) => `${s.state}/${s.reason}`).join(',') || 'none')
      await new Promise((r) => setTimeout(r, 700))
    }

    // At least one look while it ran (a loaded machine may fit only one into the 9 s); every look says working.
    expect(states.length).toBeGreaterThan(0)
    for (const st of states) expect(st).toMatch(/^working\//)
    await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled after the command')
  })

  it('error: a 429 the CLI gives up on reads needs_input/error', async () => {
    const {h} = await setup('error429', [status(429), status(429), status(429), status(429)], {retries: 1})
    const w = watch(h)
    await settleWatch(w, h)
    const pane = await h.tui(['this will fail'])
    await h.tmux.waitFor(pane, /■/, 90_000)
    const seen = Date.now()
    const done = await fileLine(h, (l) => l.payload?.type === 'task_complete')
    expect(done.payload.error?.message).toMatch(/429/)
    const s = await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error')
    expect((await runCast(['explain', s.id], {env: h.cast})).stdout).toMatch(/error\s+exceeded retry limit, last status: 429/)
    const line = await w.wait(lineIs('needs_input', 'error'), 90_000)
    recordFigure(AGENT, 'error', {status: 429, watch_ms: Math.max(0, line.at - seen)})
  })

  it('error: a 401 reads needs_input/error', async () => {
    const {h} = await setup('error401', [status(401), status(401), status(401)], {retries: 0})
    const pane = await h.tui(['this will be refused'])
    await h.tmux.waitFor(pane, /■/, 90_000)
    const done = await fileLine(h, (l) => l.payload?.type === 'task_complete')
    expect(JSON.stringify(done.payload.error ?? null)).toMatch(/401/)
    await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error')
  })

  it('declared_done: the agent runs cast state --status done', async () => {
    const {h} = await setup(
      'declared',
      [tool('exec_command', {cmd: 'cast state --status done "shipped the fix"', login: false, yield_time_ms: 20000}), text('Declared.')],
      {approval: 'never', sandbox: 'danger-full-access'},
    )
    const w = watch(h)
    await settleWatch(w, h)
    const pane = await h.tui(['finish up'])
    await h.tmux.waitFor(pane, /Declared\./)
    const seen = Date.now()
    const out = await fileLine(h, (l) => l.payload?.type === 'function_call_output')
    expect(String(out?.payload.output)).not.toMatch(/not found|error|fail/i)
    const s = await until(h.cast, is('done', 'declared_done'), 90_000, 'done/declared_done')
    expect((s.state_line as any)?.text).toBe('shipped the fix')
    const line = await w.wait(lineIs('done', 'declared_done'), 90_000)
    recordFigure(AGENT, 'declared_done', {watch_ms: Math.max(0, line.at - seen)})
  })

  for (const watched of [false, true]) {
    it(`state_inside${watched ? ' (watch)' : ''}: \`cast state\` run by the agent mid-turn finds its session working, never dead`, async () => {
      const {h} = await setup(`stin${watched ? 'w' : ''}`, [
        tool('exec_command', {cmd: 'cast state "checking the tests"', login: false, yield_time_ms: 20000}),
        text('Noted.'),
      ])
      const w = watched ? watch(h) : null
      if (w) await settleWatch(w, h)
      const pane = await h.tui(['say what you are doing'])
      await h.tmux.waitFor(pane, /Noted\./)
      const out = String((await fileLine(h, (l) => l.payload?.type === 'function_call_output'))?.payload.output)
      // The caller is the session's own live agent (its ancestry): the session it names is working.
      expect(out).toMatch(/: working — checking the tests {2}\(now working:/)
      expect(out).not.toMatch(/dead/)
      // From inside Codex's sandbox the watch's pid is out of sight: its lease still stands (no takeover).
      if (w) await w.ready(5000)
    })
  }

  it('background_command: a command left running after the turn reads dormant/background_work, then settles when it exits', async () => {
    const {h} = await setup('bg', [
      tool('exec_command', {cmd: 'sleep 15; echo bgdone', yield_time_ms: 500}),
      text('Started it in the background.'),
    ])
    const w = watch(h)
    await settleWatch(w, h)
    const pane = await h.tui(['run it in the background'])
    await h.tmux.waitFor(pane, /1 background terminal running/)
    const seen = Date.now()
    await fileLine(h, (l) => l.payload?.type === 'task_complete')
    await until(h.cast, is('dormant', 'background_work'), 90_000, 'dormant/background_work')
    const line = await w.wait(lineIs('dormant', 'background_work'), 90_000)
    recordFigure(AGENT, 'background_command', {watch_ms: Math.max(0, line.at - seen)})
    // The command exits: Codex writes its CommandExecution item after the turn; the session is the user's again.
    await fileLine(h, (l) => l.payload?.type === 'item_completed' && l.payload.item?.type === 'CommandExecution', 60_000)
    await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled once the command exited')
  })

  it('kill9: the daemon killed mid-turn reads needs_input/dead within 2 s', async () => {
    const {h, mock} = await setup('kill9', [{kind: 'stall', text: 'Thinking about it'}])
    const w = watch(h)
    await settleWatch(w, h)
    await h.tui(['think hard'])
    await mock.waitMain(1)
    await until(h.cast, is('working'), 90_000, 'working before the kill')
    const daemon = h.daemonPid()
    expect(daemon).not.toBeNull()
    const from = w.lines.length
    process.kill(daemon!, 'SIGKILL')
    const killedAt = Date.now()
    const line = await w.wait(lineIs('needs_input', 'dead'), 90_000, from)
    const ms = line.at - killedAt
    recordFigure(AGENT, 'kill9', {dead_ms: ms, what: 'daemon'})
    expect(ms).toBeLessThanOrEqual(DEAD_BOUND_MS)
    await until(h.cast, is('needs_input', 'dead'), 10_000, 'needs_input/dead one-shot')
  })

  it('kill9_unseen: a crash before cast ever looked reads needs_input/dead', async () => {
    const {h, mock} = await setup('unseen', [{kind: 'stall', text: 'Thinking'}])
    const pane = await h.tui(['think hard'])
    await mock.waitMain(1)
    // A reply streaming: no `Working (` line then, only the text so far.
    await h.tmux.waitFor(pane, /• Thinking/)
    // kill -9 everything of this home (TUI, daemon, helpers) before cast's first look.
    h.tmux.killWindow(pane)
    killUnder(h.dir)
    const end = Date.now() + 10_000
    while (pidsUnder(h.dir).length > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 100))
    const s = await until(h.cast, (x) => x.agent === AGENT, 10_000, 'the session')
    expect(`${s.state}/${s.reason}`).toBe('needs_input/dead')
  })

  it('headless: codex exec to completion reads needs_input/settled', async () => {
    const {h} = await setup('exec', [text('Headless answer.')])
    const child = h.exec('answer headless')
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)))
    expect(code).toBe(0)
    const meta = await fileLine(h, (l) => l.type === 'session_meta')
    expect(meta?.payload.originator).toBe('codex_exec')
    await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
  })

  it('holds: the tokens equal the last token_count total of the rollout; the changed files are the files the patch wrote', async () => {
    // The mock model is offered no apply_patch tool; Codex applies a patch run through exec_command itself.
    const patch = '*** Begin Patch\n*** Add File: made.txt\n+hello\n*** End Patch\n'
    const {h, mock} = await setup('holds', [
      tool('exec_command', {cmd: `apply_patch <<'EOF'\n${patch}EOF\n`, yield_time_ms: 10000}),
      text('Patched.'),
    ])
    const child = h.exec('make a file')
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)))
    expect(code).toBe(0)
    expect(fs.readFileSync(path.join(h.work, 'made.txt'), 'utf8')).toBe('hello\n')
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
    const totals = h.lines().filter((l) => l.type === 'event_msg' && l.payload?.type === 'token_count' && l.payload.info)
    const last = totals.at(-1)!.payload.info.total_token_usage
    const usage = s['usage'] as {input: number; output: number; cache_read: number; cache_write: number; total: number}
    expect(usage.total).toBe(last.total_tokens)
    expect(usage.input + usage.cache_read + usage.cache_write).toBe(last.input_tokens)
    expect(usage.output).toBe(last.output_tokens)
    // The mock answers every main request with 100 input and 12 output tokens (harness/mock/responses.ts).
    expect(usage).toMatchObject({input: 100 * mock.mainCount(), output: 12 * mock.mainCount()})
    expect(s['changed_files']).toBe(1)
    const holds = JSON.parse((await runCast(['explain', s.id, '--json'], {env: h.cast})).stdout).holds
    expect(holds.changed_files).toEqual([{path: path.join(h.work, 'made.txt'), writes: 1}])
    expect(holds.models.length).toBeGreaterThan(0)
  })

  it('headless_killed: codex exec killed mid-run reads needs_input/dead', async () => {
    const {h, mock} = await setup('execkill', [{kind: 'stall', text: 'Working on it'}])
    const child = h.exec('answer slowly')
    await mock.waitMain(1)
    const end = Date.now() + 90_000
    while (h.rollouts().length === 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200))
    await until(h.cast, is('working'), 90_000, 'working while exec runs')
    const w = watch(h)
    await settleWatch(w, h)
    const from = w.lines.length
    killUnder(h.dir)
    child.kill('SIGKILL')
    const killedAt = Date.now()
    const line = await w.wait(lineIs('needs_input', 'dead'), 90_000, from)
    recordFigure(AGENT, 'headless_killed', {dead_ms: line.at - killedAt})
    expect(line.at - killedAt).toBeLessThanOrEqual(DEAD_BOUND_MS)
  })

  it('bad_stream: a truncated stream and a garbage chunk leave cast reading what Codex wrote', async () => {
    const {h} = await setup(
      'bad',
      [
        {kind: 'truncated', text: 'cut off here'},
        {kind: 'truncated', text: 'cut off again'},
        {kind: 'garbage', text: 'After the garbage.'},
        text('fine'),
      ],
      {retries: 1},
    )
    const pane = await h.tui(['stream badly'])
    await h.tmux.waitFor(pane, /■|After the garbage|Worked for/, 90_000)
    const rows = await codexRows(h)
    expect(rows.length).toBe(1)
    const r = await runCast(['explain', rows[0]!.id], {env: h.cast})
    expect(r.code).toBe(0)
    await until(h.cast, (s) => s.agent === AGENT && s.state === 'needs_input', 90_000, 'needs_input once the turn ended')
  })

  it('send: cast send at the prompt arrives as the next turn', async () => {
    const {h, mock} = await setup('send', [text('First answer.'), text('Second answer.')])
    const pane = await h.tui(['first question'])
    await h.tmux.waitFor(pane, /First answer\./)
    const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled after the first turn')
    const r = await runCast(['send', s.id, 'second question'], {env: h.cast, timeout: 60_000})
    expect(r.code, r.stderr).toBe(0)
    await mock.waitMain(2)
    expect(mock.requests.filter((q) => !q.side).at(-1)?.lastUserText).toBe('second question')
    await h.tmux.waitFor(pane, /Second answer\./)
    const after = await until(h.cast, (x) => is('needs_input', 'settled')(x) && x.messages === 4, 90_000, 'settled after the sent turn')
    expect(after.id).toBe(s.id)
  })

  it('approve: cast approve runs the escalated command and the turn goes on', async () => {
    const {h} = await setup('approve', [
      tool('exec_command', {
        cmd: 'touch ../approved-file',
        justification: 'Write outside the workspace?',
        sandbox_permissions: 'require_escalated',
      }),
      text('Made it.'),
    ])
    const pane = await h.tui(['make the file'])
    await h.tmux.waitFor(pane, /Would you like to run the following command\?/)
    const s = await until(h.cast, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
    const r = await runCast(['approve', s.id], {env: h.cast, timeout: 60_000})
    expect(r.code, r.stderr + r.stdout).toBe(0)
    await h.tmux.waitFor(pane, /Made it\./)
    expect(fs.existsSync(`${h.dir}/approved-file`)).toBe(true)
    await until(h.cast, is('needs_input', 'settled'), 90_000, 'settled after the approved command')
  })

  it('deny: cast deny closes the dialog and the command does not run', async () => {
    const {h} = await setup('deny', [
      tool('exec_command', {
        cmd: 'touch ../denied-file',
        justification: 'Write outside the workspace?',
        sandbox_permissions: 'require_escalated',
      }),
      text('Understood.'),
    ])
    const pane = await h.tui(['make the file'])
    await h.tmux.waitFor(pane, /Would you like to run the following command\?/)
    const s = await until(h.cast, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
    const r = await runCast(['deny', s.id], {env: h.cast, timeout: 60_000})
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const end = Date.now() + 90_000
    while (/Would you like to run the following command\?/.test(h.tmux.capture(pane)) && Date.now() < end)
      await new Promise((res) => setTimeout(res, 250))
    expect(h.tmux.capture(pane)).not.toMatch(/Would you like to run the following command\?/)
    expect(fs.existsSync(`${h.dir}/denied-file`)).toBe(false)
    const after = await until(h.cast, (x) => x.agent === AGENT && x.reason !== 'approval', 90_000, 'the approval gone')
    expect(after.state).toBe('needs_input')
  })

  it('two_sessions: two TUIs on one CODEX_HOME (one daemon) keep their own state', async () => {
    const mock = await startMock((req) =>
      req.side ? undefined : /one/.test(req.lastUserText) ? {kind: 'stall', text: 'Still thinking'} : text('Answer two.'),
    )
    mocks.push(mock)
    for (const w of watches.splice(0)) await w.stop()
    for (const x of homes.splice(0)) x.cleanup()
    const h = makeCodexHome('two', mock)
    homes.push(h)
    const one = await h.tui(['question one'])
    await mock.waitMain(1)
    fs.mkdirSync(`${h.dir}/work2`)
    const two = await h.tui(['question two'], `${h.dir}/work2`)
    await h.tmux.waitFor(two, /Answer two\./)
    expect(h.tmux.capture(one)).not.toMatch(/Answer two\./)
    // One daemon serves both TUIs.
    expect(
      pidsUnder(h.dir).filter((p) => /app-server --listen/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' '))).length,
    ).toBe(1)
    const end = Date.now() + 90_000
    let rows: CastSession[] = []
    for (;;) {
      rows = await codexRows(h)
      const a = rows.find((x) => x.cwd === h.work)
      const b = rows.find((x) => x.cwd === `${h.dir}/work2`)
      // The settled one's pane is its own (the daemon is in neither pane's tree). The streaming
      // one's screen matches no pattern ("Still thinking" with no Working line): it names no pane,
      // never the other's.
      const panes = (x: CastSession | undefined): unknown => (x as (CastSession & {pane?: string | null}) | undefined)?.pane
      const tied = panes(b) === two.id && panes(a) !== two.id
      if (rows.length === 2 && a?.state === 'working' && b?.state === 'needs_input' && b.reason === 'settled' && tied) break
      if (Date.now() > end) throw new Error(`two sessions: ${JSON.stringify(rows.map((x) => [x.cwd, x.state, x.reason, x.pane]))}`)
      await new Promise((r) => setTimeout(r, 500))
    }

    recordFigure(AGENT, 'two_sessions', {panes: rows.map((x) => String(x.pane ?? 'none')).join(',')})
  })

  it('two_tuis: two TUIs in one folder on one daemon each get their own pane, approval, send and death', async () => {
    const mock = await startMock((req) => {
      if (req.side) return undefined
      const last = req.lastUserText
      if (/^ping one/.test(last)) return text('Pong one.')
      if (/^ping two/.test(last)) return text('Pong two.')
      if (/question one/.test(last)) return text('Answer one.')
      if (req.toolResults > 0) return text('Made it two.')
      if (/question two|again two/.test(last))
        return tool('exec_command', {
          cmd: 'touch ../approved-two',
          justification: 'Write outside the workspace?',
          sandbox_permissions: 'require_escalated',
        })
      return text('Other.')
    })
    mocks.push(mock)
    for (const w of watches.splice(0)) await w.stop()
    for (const x of homes.splice(0)) x.cleanup()
    const h = makeCodexHome('tuis', mock)
    homes.push(h)
    const one = await h.tui(['question one'])
    await h.tmux.waitFor(one, /Answer one\./)
    // The second TUI starts once the first one's thread exists (two started within seconds of each
    // other in one folder stay untied: thread-birth.ts).
    await new Promise((r) => setTimeout(r, 3000))
    const two = await h.tui(['question two'])
    await h.tmux.waitFor(two, /Would you like to run the following command\?/)
    expect(h.tmux.capture(one)).not.toMatch(/Would you like to run/)
    const daemons = new Set(h.rollouts().length === 2 ? [h.daemonPid()] : [])
    expect(daemons.size).toBe(1)

    // Each session: its own state and its own pane.
    const end = Date.now() + 90_000
    let rows: CastSession[] = []
    let a: CastSession | undefined
    let b: CastSession | undefined
    for (;;) {
      rows = await codexRows(h)
      a = rows.find((x) => x.state === 'needs_input' && x.reason === 'settled')
      b = rows.find((x) => x.state === 'needs_input' && x.reason === 'approval')
      if (rows.length === 2 && a && b && paneOf(a) !== null && paneOf(b) !== null) break
      if (Date.now() > end) throw new Error(`two TUIs: ${JSON.stringify(rows.map((x) => [x.native_id, x.state, x.reason, paneOf(x)]))}`)
      await new Promise((r) => setTimeout(r, 500))
    }

    // Each pane tied to its own thread (the screen sweep's reading names the pane).
    expect(paneOf(a)).toBe(one.id)
    expect(paneOf(b)).toBe(two.id)
    expect(screenTie(h, a.native_id)).toBe(one.id)
    expect(screenTie(h, b.native_id)).toBe(two.id)

    // cast approve on the second: the command runs in the second TUI's turn.
    const ap = await runCast(['approve', b.id], {env: h.cast, timeout: 60_000})
    expect(ap.code, ap.stderr + ap.stdout).toBe(0)
    await h.tmux.waitFor(two, /Made it two\./)
    expect(fs.existsSync(`${h.dir}/approved-two`)).toBe(true)
    expect(h.tmux.capture(one)).not.toMatch(/Made it two\./)
    await until(h.cast, (x) => x.id === b!.id && x.state === 'needs_input' && x.reason === 'settled', 90_000, 'the second settled')

    // cast send to each lands in its own pane.
    const s1 = await runCast(['send', a.id, 'ping one'], {env: h.cast, timeout: 60_000})
    expect(s1.code, s1.stderr).toBe(0)
    await h.tmux.waitFor(one, /Pong one\./)
    const s2 = await runCast(['send', b.id, 'ping two'], {env: h.cast, timeout: 60_000})
    expect(s2.code, s2.stderr).toBe(0)
    await h.tmux.waitFor(two, /Pong two\./)
    expect(h.tmux.capture(two)).not.toMatch(/Pong one\./)
    expect(h.tmux.capture(one)).not.toMatch(/Pong two\./)

    // A second approval in the second TUI, then that TUI killed: only its session reads dead.
    const s3 = await runCast(['send', b.id, 'again two'], {env: h.cast, timeout: 60_000})
    expect(s3.code, s3.stderr).toBe(0)
    await h.tmux.waitFor(two, /Would you like to run the following command\?/)
    await until(h.cast, (x) => x.id === b!.id && x.reason === 'approval', 90_000, 'the second asking again')
    // A watch (cast sessions -w) measures when the dead line comes after the kill.
    const w = new Watch(h.cast)
    watches.push(w)
    await sessions(h.cast)
    await w.ready()
    const from = w.lines.length
    const tui = tuiPid(two.pid)
    const killedAt = Date.now()
    for (const pid of [two.pid, tui]) if (pid !== null) process.kill(pid, 'SIGKILL')
    const line = await w.wait((l) => l.id === b!.id && l.to === 'needs_input' && l.reason === 'dead', 90_000, from)
    const dead = await until(
      h.cast,
      (x) => x.id === b!.id && x.state === 'needs_input' && x.reason === 'dead',
      30_000,
      'the killed TUI dead',
    )
    const other = (await codexRows(h)).find((x) => x.id === a!.id)
    expect(other?.state).toBe('needs_input')
    expect(other?.reason).toBe('settled')
    expect(screenTie(h, a.native_id)).toBe(one.id)
    expect(paneOf(other!)).toBe(one.id)
    recordFigure(AGENT, 'two_tuis', {dead_ms: line.at - killedAt, reason: dead.reason})
  })

  describe('with cast hooks install codex', () => {
    async function hooked(
      name: string,
      replies: readonly Reply[],
      prompt: string,
    ): Promise<{h: CodexHome; mock: Mock; pane: ReturnType<CodexHome['tmux']['open']>}> {
      const {h, mock} = await setup(name, replies)
      const r = await runCast(['hooks', 'install', 'codex'], {env: h.cast})
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/Trust all and continue/)
      const hooks = JSON.parse(fs.readFileSync(`${h.codexHome}/hooks.json`, 'utf8')).hooks
      for (const ev of [
        'PermissionRequest',
        'Stop',
        'PostModelRequest',
        'Interrupt',
        'SessionStart',
        'SessionEnd',
        'UserPromptSubmit',
        'PreToolUse',
        'PostToolUse',
        'SubagentStart',
        'SubagentStop',
      ])
        expect(Object.keys(hooks)).toContain(ev)
      h.tmux.run(['set-option', '-g', 'remain-on-exit', 'on'])
      const pane = h.tmux.open([CODEX, prompt], {cwd: h.work, env: h.agentEnv})
      await trustHooks(h.tmux, pane)
      return {h, mock, pane}
    }

    const spooled = (h: CodexHome): string => {
      const dir = `${h.cast['CAST_HOME']}`
      let out = ''
      const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, {withFileTypes: true})) {
          if (e.isDirectory()) walk(`${d}/${e.name}`)
          else if (/spool/.test(`${d}/${e.name}`)) out += fs.readFileSync(`${d}/${e.name}`, 'utf8')
        }
      }

      walk(dir)
      return out
    }

    it('plain (hooks): a finished answer reads needs_input/settled', async () => {
      const {h, pane} = await hooked('hplain', [text('Hooked hello.')], 'say hello')
      await h.tmux.waitFor(pane, /Hooked hello\./)
      const s = await until(h.cast, is('needs_input', 'settled'), 90_000, 'needs_input/settled')
      // cast's nudge (Stop answered once with decision: block) makes Codex write a HookPrompt
      // item and reply once more: one prompt and every reply count, the hook prompt does not.
      await fileLine(h, (l) => l.payload?.type === 'task_complete')
      const replies = h.lines().filter((l) => l.payload?.type === 'item_completed' && l.payload.item?.type === 'AgentMessage').length
      expect(s.messages).toBe(1 + replies)
      expect((await codexRows(h)).length).toBe(1)
      expect(fs.readFileSync(`${h.codexHome}/config.toml`, 'utf8')).toMatch(/trusted_hash/)
    })

    it('approval (hooks): PermissionRequest reads needs_input/approval', async () => {
      const {h, pane} = await hooked(
        'happroval',
        [
          tool('exec_command', {cmd: 'touch ../outside-hooked', justification: 'Write outside?', sandbox_permissions: 'require_escalated'}),
          text('Done.'),
        ],
        'make the file',
      )
      await h.tmux.waitFor(pane, /Would you like to run the following command\?/)
      const s = await until(h.cast, is('needs_input', 'approval'), 90_000, 'needs_input/approval')
      // The hook, not only the screen, says so: the approval's source is Codex's PermissionRequest.
      const explain = (await runCast(['explain', s.id], {env: h.cast})).stdout
      expect(explain).toMatch(/approval[^\n]*\n\s*↳ hook: PermissionRequest/)
    })

    it('error (hooks): a failed turn (PostModelRequest failed, no Stop) reads needs_input/error', async () => {
      const {h, pane} = await hooked('herror', [status(401), status(401), status(401)], 'this will be refused')
      await h.tmux.waitFor(pane, /■/, 90_000)
      const s = await until(h.cast, is('needs_input', 'error'), 90_000, 'needs_input/error')
      const explain = (await runCast(['explain', s.id], {env: h.cast})).stdout
      expect(explain).toMatch(/error[^\n]*401[^\n]*\n\s*↳ hook: PostModelRequest/)
      void spooled
    })
  })
})
