/**
 * Conformance: OpenCode 1.18.33 (opencode-ai), driven in a private tmux server against the
 * mock's chat-completions endpoint through a custom `@ai-sdk/openai-compatible` provider.
 * Each scenario is its own HOME (its own opencode.db and log), its own mock and tmux server;
 * independent scenarios run side by side. docs/agents/opencode.md says what each one showed.
 *
 * OpenCode has no hooks cast installs, so there are no "(hooks)" rows; its bash tool has no
 * background mode (no background_command row).
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect} from 'vitest'
import {type CastSession, DEAD_BOUND_MS, recordFigure, runCast, sessions, until, Watch} from './harness/cast.js'
import {type Mock, type MockRequest, type Reply, type Script, sequence, startMock, status, text, tool} from './harness/mock/server.js'
import {atCaseEnd, concurrentCase} from './harness/scope.js'
import {type AgentPane, descendants} from './harness/tmux.js'
import {OPENCODE, type OcHome, READY, makeHome, warmConfig} from './opencode/home.js'

const AGENT = 'opencode'
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-conf-oc-'))
const cleanups: (() => Promise<void> | void)[] = []

beforeAll(async () => {
  await warmConfig(root)
}, 180_000)

afterAll(async () => {
  for (const c of cleanups.reverse()) {
    try {
      await c()
    } catch {
      /* best effort */
    }
  }

  fs.rmSync(root, {force: true, recursive: true})
})

interface Run {
  readonly h: OcHome
  readonly mock: Mock
  readonly env: Record<string, string>
}

async function setup(name: string, script: Script): Promise<Run> {
  const mock = await startMock(script)
  const h = makeHome(root, name, mock.url)
  atCaseEnd(cleanups, () => mock.close())
  atCaseEnd(cleanups, () => h.cleanup())
  return {env: h.cast, h, mock}
}

/** Start the TUI and type the prompt once its input is up. */
async function startTui(r: Run, prompt: string | null, env: Record<string, string> = {}, cwd?: string): Promise<AgentPane> {
  const pane = r.h.open({cwd, env})
  await r.h.tmux.waitFor(pane, READY, 120_000)
  if (prompt !== null) r.h.tmux.type(pane, prompt)
  return pane
}

/** Rows of OpenCode's own database (read-only), the truth the screen is checked against. */
function dbAll(h: OcHome, sql: string, ...params: unknown[]): Record<string, any>[] {
  if (!fs.existsSync(h.db)) return []
  const db = new Database(h.db, {fileMustExist: true, readonly: true})
  try {
    return db.prepare(sql).all(...params) as Record<string, any>[]
  } catch (error) {
    // OpenCode creates its tables on the first start: until then there is nothing to read.
    if (/no such table/.test(String(error))) return []
    throw error
  } finally {
    db.close()
  }
}

function topSessions(h: OcHome): Record<string, any>[] {
  return dbAll(h, 'SELECT id, directory, title FROM session WHERE parent_id IS NULL ORDER BY time_created')
}

async function waitFile<T>(what: string, probe: () => T | null | undefined | false, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = probe()
    if (v) return v
    if (Date.now() > end) throw new Error(`never saw ${what} within ${timeoutMs} ms`)
    await new Promise((res) => setTimeout(res, 250))
  }
}

const isOc = (s: CastSession): boolean => s.agent === AGENT && !s.parent_id
const at = (nativeId: string, state: string, reason?: string) => (s: CastSession) =>
  s.native_id === nativeId && s.state === state && (reason === undefined || s.reason === reason)

/** Watch lines name cast's id; map a native id to it once cast has seen the session. */
async function castId(env: Record<string, string>, nativeId: string): Promise<string> {
  return (await until(env, (s) => s.native_id === nativeId, 90_000, `session ${nativeId}`)).id
}

async function watchFor(
  w: Watch,
  env: Record<string, string>,
  nativeId: string,
  state: string,
  reason: string | undefined,
  timeoutMs = 90_000,
) {
  const id = await castId(env, nativeId)
  return w.wait((l) => l.id === id && l.to === state && (reason === undefined || l.reason === reason), timeoutMs)
}

function startWatch(env: Record<string, string>): Watch {
  const w = new Watch(env)
  atCaseEnd(cleanups, () => w.stop())
  return w
}

function killTree(pid: number): void {
  for (const p of [pid, ...descendants(pid)]) {
    try {
      process.kill(p, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
}

/** A fact as `cast explain --json` shows it: its value and where it came from. */
async function explainFact(
  env: Record<string, string>,
  id: string,
  name: string,
): Promise<{value: unknown; source: {kind: string; ref: string} | null}> {
  const r = await runCast(['explain', id, '--json'], {env, timeout: 60_000})
  if (r.code !== 0) throw new Error(`cast explain exited ${r.code}: ${r.stderr}`)
  const facts = (JSON.parse(r.stdout) as {facts: {fact: string; value: unknown; source: {kind: string; ref: string} | null}[]}).facts
  return facts.find((f) => f.fact === name) ?? {source: null, value: undefined}
}

/** The process exited (a zombie its parent has not reaped yet counts as exited). */
function gone(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return /^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))
  } catch {
    return true
  }
}

const sleep = (ms: number): Promise<void> => new Promise((res) => setTimeout(res, ms))

describe(AGENT, () => {
  concurrentCase('fresh: a TUI with nothing asked yet is not listed as working', async () => {
    const r = await setup('fresh', sequence([]))
    const pane = await startTui(r, null)
    const screen = r.h.tmux.capture(pane)
    expect(screen).toMatch(READY)
    // OpenCode writes no session row before the first prompt.
    expect(topSessions(r.h)).toEqual([])
    await sleep(3000)
    const list = (await sessions(r.env)).filter(isOc)
    for (const s of list) {
      expect(s.state).not.toBe('working')
      expect(['idle', 'new']).toContain(s.bucket === 'new' ? 'new' : s.state)
    }
  })

  concurrentCase('plain: an answered prompt reads needs_input/settled, one-shot and in watch', async () => {
    const r = await setup('plain', sequence([text('Hello from the mock.', {chunks: 4, delayMs: 50})]))
    const pane = await startTui(r, null)
    const w = startWatch(r.env)
    await w.ready()
    r.h.tmux.type(pane, 'Say hello please')
    await r.h.tmux.waitFor(pane, /Hello from the mock\./, 60_000)
    const seenAt = Date.now()
    const [ses] = await waitFile('the session row', () => topSessions(r.h).length === 1 && topSessions(r.h))
    const s = await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'needs_input/settled')
    expect(s.messages).toBe(2)
    const l = await watchFor(w, r.env, ses!.id, 'needs_input', 'settled')
    recordFigure(AGENT, 'plain', {watch_ms: l.at - seenAt})
  })

  concurrentCase('approval: the external-directory permission dialog reads needs_input/approval', async () => {
    const r = await setup('approval', sequence([tool('read', {filePath: '/etc/hostname'}), text('Read it.')]))
    const pane = await startTui(r, null)
    const w = startWatch(r.env)
    await w.ready()
    r.h.tmux.type(pane, 'Read the file /etc/hostname')
    await r.h.tmux.waitFor(pane, /Permission required[\s\S]*Access external directory/, 60_000)
    const seenAt = Date.now()
    const [ses] = topSessions(r.h)
    // The files: the tool part is left running, and the log says it is asking.
    expect(
      dbAll(
        r.h,
        `SELECT json_extract(data,'$.state.status') AS st FROM part WHERE session_id = ? AND json_extract(data,'$.type') = 'tool'`,
        ses!.id,
      ).map((p) => p.st),
    ).toContain('running')
    // (OpenCode's log reaches the file a little after the screen.)
    await waitFile(
      'the asking line',
      () => /message=asking id=per_\S+ permission=external_directory/.test(fs.readFileSync(r.h.log, 'utf8')),
      90_000,
    )
    const s = await until(r.env, at(ses!.id, 'needs_input', 'approval'), 90_000, 'needs_input/approval')
    const ask = await explainFact(r.env, s.id, 'approval')
    expect(String(ask.value)).toMatch(/external directory/i)
    const l = await watchFor(w, r.env, ses!.id, 'needs_input', 'approval')
    recordFigure(AGENT, 'approval', {watch_ms: l.at - seenAt})
  })

  concurrentCase('approve: cast approve answers the dialog and the tool runs', async () => {
    const r = await setup('approve', sequence([tool('read', {filePath: '/etc/hostname'}), text('Read it.')]))
    const pane = await startTui(r, 'Read the file /etc/hostname')
    await r.h.tmux.waitFor(pane, /Permission required[\s\S]*Allow once/, 60_000)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'needs_input', 'approval'), 90_000, 'needs_input/approval')
    const res = await runCast(['approve', s.id, '--json'], {env: r.env, timeout: 60_000})
    expect(res.code, res.stderr).toBe(0)
    await r.mock.waitMain(2, 60_000)
    const second = r.mock.requests.filter((q) => !q.side)[1]!
    expect(second.toolResults).toBe(1)
    expect(JSON.stringify(second.body.messages.at(-1))).toContain(fs.readFileSync('/etc/hostname', 'utf8').trim())
    await r.h.tmux.waitFor(pane, /Read it\./, 60_000)
    await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'settled after the tool ran')
  })

  concurrentCase('deny: cast deny rejects the dialog and the tool does not run', async () => {
    const r = await setup('deny', sequence([tool('read', {filePath: '/etc/hostname'}), text('Understood.')]))
    const pane = await startTui(r, 'Read the file /etc/hostname')
    await r.h.tmux.waitFor(pane, /Permission required[\s\S]*Allow once/, 60_000)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'needs_input', 'approval'), 90_000, 'needs_input/approval')
    const res = await runCast(['deny', s.id, '--json'], {env: r.env, timeout: 60_000})
    expect(res.code, res.stderr).toBe(0)
    const part = await waitFile(
      'the read tool ended',
      () => {
        const rows = dbAll(
          r.h,
          `SELECT json_extract(data,'$.state.status') AS st, json_extract(data,'$.state.error') AS err FROM part WHERE session_id = ? AND json_extract(data,'$.tool') = 'read'`,
          ses!.id,
        )
        return rows.find((x) => x.st !== 'running' && x.st !== 'pending')
      },
      90_000,
    )
    expect(part.st).toBe('error')
    const hostname = fs.readFileSync('/etc/hostname', 'utf8').trim()
    for (const q of r.mock.requests) expect(JSON.stringify(q.body)).not.toContain(`1: ${hostname}`)
    // OpenCode asks the model nothing more: the turn is over, back at the prompt.
    await r.h.tmux.waitFor(pane, /ctrl\+p commands/, 90_000)
    await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'needs_input/settled after the rejection')
    expect(r.mock.mainCount()).toBe(1)
  })

  concurrentCase('question: the question tool reads needs_input/question with the question as the ask', async () => {
    const q = 'Which colour should the button be?'
    const r = await setup(
      'question',
      sequence([
        tool('question', {
          questions: [
            {
              header: 'Colour',
              options: [
                {description: 'warm', label: 'Red'},
                {description: 'cool', label: 'Blue'},
              ],
              question: q,
            },
          ],
        }),
        text('Red it is.'),
      ]),
    )
    const pane = await startTui(r, null, {OPENCODE_ENABLE_QUESTION_TOOL: '1'})
    const w = startWatch(r.env)
    await w.ready()
    r.h.tmux.type(pane, 'Ask me which colour')
    const qs = await r.h.tmux.waitFor(pane, /Which colour should the button be\?/, 60_000)
    expect(qs).toMatch(/esc dismiss/)
    const seenAt = Date.now()
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'needs_input', 'question'), 90_000, 'needs_input/question')
    expect((await explainFact(r.env, s.id, 'question')).value).toBe(q)
    const l = await watchFor(w, r.env, ses!.id, 'needs_input', 'question')
    recordFigure(AGENT, 'question', {watch_ms: l.at - seenAt})
  })

  concurrentCase('long_command: a running bash tool reads working the whole time, then settled', async () => {
    const r = await setup(
      'long',
      sequence([tool('bash', {command: 'sleep 20; echo slept', description: 'Sleep a while'}), text('The command finished.')]),
    )
    const pane = await startTui(r, null)
    const w = startWatch(r.env)
    await w.ready()
    r.h.tmux.type(pane, 'Run the long command')
    await r.mock.waitMain(1)
    await r.h.tmux.waitFor(pane, /sleep 20/, 60_000)
    const shownAt = Date.now()
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'working'), 90_000, 'working')
    const id = s.id
    // Through the command: every look says working.
    const end = Date.now() + 12_000
    while (Date.now() < end && r.mock.mainCount() < 2) {
      const now = (await sessions(r.env)).find((x) => x.id === id)
      if (r.mock.mainCount() < 2) expect(now?.state).toBe('working')
      await sleep(1000)
    }

    await r.mock.waitMain(2, 60_000)
    await r.h.tmux.waitFor(pane, /The command finished\./, 60_000)
    await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'settled after the command')
    // The watch: working when the command showed and nothing else until it ended (the agent's
    // next request to the mock), then the settle.
    const commandEnded = r.mock.requests.filter((q) => !q.side)[1]!.at
    const mine = w.lines.filter((l) => l.line.id === id)
    expect(mine.filter((l) => l.at < commandEnded).at(-1)?.line.to).toBe('working')
    expect(mine.filter((l) => l.at >= shownAt && l.at < commandEnded).map((l) => l.line.to)).toEqual(
      expect.not.arrayContaining(['needs_input', 'idle', 'done', 'dormant']),
    )
    await w.wait((l) => l.id === id && l.to === 'needs_input' && l.reason === 'settled', 90_000)
  })

  concurrentCase('kill9: kill -9 mid-turn reads needs_input/dead within 2 s', async () => {
    const r = await setup('kill9', sequence([tool('bash', {command: 'sleep 60', description: 'Sleep'}), text('never')]))
    const pane = await startTui(r, null)
    const w = startWatch(r.env)
    await w.ready()
    r.h.tmux.type(pane, 'Run the long command')
    await r.h.tmux.waitFor(pane, /sleep 60/, 60_000)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, (x) => x.native_id === ses!.id && x.state === 'working' && x.live, 90_000, 'working and live')
    const from = w.lines.length
    const killedAt = Date.now()
    killTree(pane.pid)
    const l = await w.wait((x) => x.id === s.id && x.to === 'needs_input' && x.reason === 'dead', 15_000, from)
    recordFigure(AGENT, 'kill9', {dead_ms: l.at - killedAt})
    expect(l.at - killedAt).toBeLessThanOrEqual(DEAD_BOUND_MS)
    await until(r.env, at(ses!.id, 'needs_input', 'dead'), 10_000, 'needs_input/dead one-shot')
  })

  concurrentCase('kill9_unseen: a crash before cast first looks reads needs_input/dead', async () => {
    const r = await setup('kill9u', sequence([tool('bash', {command: 'sleep 60', description: 'Sleep'}), text('never')]))
    const pane = await startTui(r, 'Run the long command')
    await r.h.tmux.waitFor(pane, /sleep 60/, 60_000)
    const [ses] = topSessions(r.h)
    killTree(pane.pid)
    await waitFile('the agent gone', () => gone(pane.pid), 20_000)
    const t0 = Date.now()
    const s = await until(r.env, at(ses!.id, 'needs_input', 'dead'), 20_000, 'needs_input/dead')
    recordFigure(AGENT, 'kill9_unseen', {first_look_ms: Date.now() - t0})
    expect(s.live).toBe(false)
  })

  concurrentCase('retrying: retries after 500s in progress read working', async () => {
    const r = await setup('retry', () => status(500))
    const pane = await startTui(r, 'Say something')
    await r.h.tmux.waitFor(pane, /retrying attempt #\d/i, 90_000)
    const [ses] = topSessions(r.h)
    await until(r.env, at(ses!.id, 'working'), 90_000, 'working while retrying')
    // Still retrying (the mock keeps answering 500, the busy line stays): still working.
    const before = r.mock.mainCount()
    await r.mock.waitMain(before + 1, 60_000)
    await r.h.tmux.waitFor(pane, /esc interrupt/, 5000)
    const s = (await sessions(r.env)).find((x) => x.native_id === ses!.id)
    expect(s?.state).toBe('working')
  })

  concurrentCase('error: a 401 reads needs_input/error with the API message', async () => {
    const r = await setup('e401', sequence([], {after: status(401)}))
    const w = startWatch(r.env)
    const pane = await startTui(r, 'Say something')
    await r.h.tmux.waitFor(pane, /mock 401/, 60_000)
    const seenAt = Date.now()
    const [ses] = await waitFile('the session row', () => topSessions(r.h).length === 1 && topSessions(r.h))
    // The screen shows the error before the message row carries it.
    const error = await waitFile(
      'the stored error',
      () =>
        dbAll(
          r.h,
          `SELECT json_extract(data,'$.error.name') AS n, json_extract(data,'$.error.data.statusCode') AS c FROM message WHERE session_id = ? AND json_extract(data,'$.error') IS NOT NULL`,
          ses!.id,
        )[0],
      90_000,
    )
    expect(error).toEqual({c: 401, n: 'APIError'})
    const s = await until(r.env, at(ses!.id, 'needs_input', 'error'), 90_000, 'needs_input/error')
    expect(String((await explainFact(r.env, s.id, 'error')).value)).toMatch(/401/)
    const l = await watchFor(w, r.env, ses!.id, 'needs_input', 'error')
    recordFigure(AGENT, 'error', {watch_ms: l.at - seenAt})
  })

  concurrentCase('declared_done: the agent runs cast state --status done and reads done/declared_done', async () => {
    const r = await setup(
      'done',
      sequence([tool('bash', {command: 'cast state --status done "Shipped the fix"', description: 'Declare done'}), text('Declared.')]),
    )
    const pane = await startTui(r, 'Finish up and declare it')
    await r.h.tmux.waitFor(pane, /Declared\./, 90_000)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'done', 'declared_done'), 90_000, 'done/declared_done')
    expect((s.state_line as {text?: string} | null)?.text).toBe('Shipped the fix')
  })

  concurrentCase('headless: opencode run to completion reads needs_input/settled', async () => {
    const r = await setup('headless', sequence([text('Headless answer.')]))
    const out = await runHeadless(r, 'Answer headless')
    expect(out.code).toBe(0)
    expect(out.stdout).toMatch(/Headless answer\./)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'settled')
    expect(s.messages).toBe(2)
    expect(s.live).toBe(false)
  })

  concurrentCase('headless_killed: opencode run killed mid-run reads needs_input/dead', async () => {
    const r = await setup('headless-kill', sequence([tool('bash', {command: 'sleep 60', description: 'Sleep'}), text('never')]))
    const child = spawnHeadless(r, 'Run the long command')
    // A loaded machine can take a minute or two to get `opencode run` to its first request.
    await r.mock.waitMain(1, 170_000)
    await waitFile(
      'the bash tool running',
      () =>
        dbAll(r.h, `SELECT 1 FROM part WHERE json_extract(data,'$.tool') = 'bash' AND json_extract(data,'$.state.status') = 'running'`)
          .length > 0,
      90_000,
    )
    const [ses] = topSessions(r.h)
    await until(r.env, at(ses!.id, 'working'), 90_000, 'working')
    killTree(child.pid!)
    await until(r.env, at(ses!.id, 'needs_input', 'dead'), 20_000, 'needs_input/dead')
  })

  concurrentCase('send: cast send at the prompt arrives as the next turn', async () => {
    const r = await setup('send', sequence([text('First answer.'), text('Second answer.')]))
    const pane = await startTui(r, 'First question')
    await r.h.tmux.waitFor(pane, /First answer\./, 60_000)
    const [ses] = topSessions(r.h)
    const s = await until(r.env, at(ses!.id, 'needs_input', 'settled'), 90_000, 'settled')
    const sent = await runCast(['send', s.id, '--', 'Second question from cast'], {env: r.env, timeout: 90_000})
    expect(sent.code, sent.stderr).toBe(0)
    await r.mock.waitMain(2, 60_000)
    expect(r.mock.requests.filter((q) => !q.side).at(-1)!.lastUserText).toContain('Second question from cast')
    await r.h.tmux.waitFor(pane, /Second answer\./, 60_000)
    const after = await until(
      r.env,
      (x) => x.native_id === ses!.id && x.state === 'needs_input' && x.messages === 4,
      90_000,
      'the second turn settled',
    )
    expect(after.reason).toBe('settled')
  })

  concurrentCase('two_sessions: two TUIs in one home keep their own state (a permission in one, a command in the other)', async () => {
    // One mock: the prompt says which session asks.
    const r = await setup('two', (req: MockRequest): Reply | undefined => {
      if (req.side) return undefined
      if (req.lastUserText.includes('alpha')) return req.toolResults > 0 ? text('alpha done') : tool('read', {filePath: '/etc/hostname'})
      if (req.lastUserText.includes('beta'))
        return req.toolResults > 0 ? text('beta done') : tool('bash', {command: 'sleep 300', description: 'Sleep'})
      return text('?')
    })
    const other = r.h.folder('other')
    const b = await startTui(r, 'beta: run the command', {}, other)
    await r.h.tmux.waitFor(b, /sleep 300/, 60_000)
    const [beta] = topSessions(r.h)
    await until(r.env, at(beta!.id, 'working'), 90_000, 'beta working')
    const a = await startTui(r, 'alpha: read the file /etc/hostname')
    await r.h.tmux.waitFor(a, /Permission required/, 60_000)
    const rows = topSessions(r.h)
    expect(rows).toHaveLength(2)
    const alpha = rows.find((x) => x.directory === r.h.project)!
    expect(beta!.directory).toBe(other)
    // Both processes hold opencode.db, which names both sessions: the log says whose permission it is.
    const s = await until(r.env, at(alpha.id, 'needs_input', 'approval'), 90_000, 'alpha approval')
    expect(String((await explainFact(r.env, s.id, 'approval')).value)).toMatch(/external directory/i)
    const list = await sessions(r.env)
    expect(list.find((x) => x.native_id === beta!.id)?.state).toBe('working')
    expect(list.find((x) => x.native_id === alpha.id)?.reason).toBe('approval')
    // A crash of one is that one's.
    killTree(b.pid)
    await until(r.env, at(beta!.id, 'needs_input', 'dead'), 20_000, 'beta dead')
    expect((await sessions(r.env)).find((x) => x.native_id === alpha.id)?.reason).toBe('approval')
    // A crash with the dialog open: the log still says "asking", the session reads dead.
    killTree(a.pid)
    await until(r.env, at(alpha.id, 'needs_input', 'dead'), 20_000, 'alpha dead with its dialog gone')
  })

  concurrentCase('older_run: a TUI opened where opencode run ran before is tied to its own session, not the older one', async () => {
    const r = await setup('older', (req: MockRequest): Reply | undefined => {
      if (req.side) return undefined
      if (req.lastUserText.includes('first')) return text('First run answer.')
      if (req.lastUserText.includes('second')) return req.toolResults > 0 ? text('Read it.') : tool('read', {filePath: '/etc/hostname'})
      if (req.lastUserText.includes('third')) return text('Third answer.')
      return text('?')
    })
    const out = await runHeadless(r, 'first: answer headless')
    expect(out.code, out.stderr).toBe(0)
    const [older] = topSessions(r.h)
    await until(r.env, at(older!.id, 'needs_input', 'settled'), 90_000, 'the run settled')
    const pane = await startTui(r, null)
    const w = startWatch(r.env)
    await w.ready()
    // The TUI at its prompt, before it has a session: the older session stays untied.
    await sleep(4000)
    expect((await sessions(r.env)).find((x) => x.native_id === older!.id)?.pane ?? null).toBeNull()
    r.h.tmux.type(pane, 'second: read the file /etc/hostname')
    await r.h.tmux.waitFor(pane, /Permission required[\s\S]*Allow once/, 90_000)
    const seenAt = Date.now()
    const tui = await waitFile('the TUI session row', () => topSessions(r.h).find((x) => x.id !== older!.id))
    expect(tui.directory).toBe(older!.directory)
    const l = await watchFor(w, r.env, tui.id, 'needs_input', 'approval')
    recordFigure(AGENT, 'older_run', {watch_ms: l.at - seenAt})
    const s = await until(r.env, at(tui.id, 'needs_input', 'approval'), 90_000, 'the TUI session needs_input/approval')
    expect(s.pane).toBe(pane.id)
    // On its way there the TUI's session never read dead (its process claimed by the older one).
    expect(w.lines.filter((x) => x.line.id === s.id && x.line.reason === 'dead')).toEqual([])
    const old = (await sessions(r.env)).find((x) => x.native_id === older!.id)!
    expect([old.state, old.reason, old.pane ?? null]).toEqual(['needs_input', 'settled', null])
    // The verbs land in the TUI.
    const approved = await runCast(['approve', s.id], {env: r.env, timeout: 60_000})
    expect(approved.code, approved.stderr).toBe(0)
    await r.h.tmux.waitFor(pane, /Read it\./, 60_000)
    await until(r.env, at(tui.id, 'needs_input', 'settled'), 90_000, 'the TUI session settled')
    const sent = await runCast(['send', s.id, '--', 'third: from cast'], {env: r.env, timeout: 90_000})
    expect(sent.code, sent.stderr).toBe(0)
    await r.h.tmux.waitFor(pane, /Third answer\./, 60_000)
    expect(r.mock.requests.filter((q) => !q.side).at(-1)!.lastUserText).toContain('third: from cast')
    // The older session has no pane and no process: a send to it is not typed into the TUI (cast
    // has no headless resume for OpenCode, so it fails and says so).
    const refused = await runCast(['send', old.id, '--', 'third: not here'], {env: r.env, timeout: 60_000})
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/no live process/)
    await sleep(2000)
    expect(r.h.tmux.capture(pane)).not.toMatch(/not here/)
    expect(r.mock.requests.some((q) => q.lastUserText.includes('not here'))).toBe(false)
  })

  concurrentCase(
    'background_subagent: a background task child producing, parent at its prompt, reads dormant/child_producing',
    async () => {
      const r = await setup('bgsub', (req: MockRequest): Reply | undefined => {
        if (req.side) return undefined
        if (req.lastUserText.includes('CHILD TASK')) return {kind: 'stall', text: 'Counting'}
        if (req.toolResults > 0) return text('Started it in the background.')
        return tool('task', {
          background: true,
          description: 'Count in background',
          prompt: 'CHILD TASK: count to a million',
          subagent_type: 'general',
        })
      })
      const pane = await startTui(r, 'Start the background job', {OPENCODE_EXPERIMENTAL_BACKGROUND_SUBAGENTS: '1'})
      await r.h.tmux.waitFor(pane, /Started it in the background\./, 90_000)
      const rows = dbAll(r.h, 'SELECT id, parent_id FROM session ORDER BY time_created')
      const parent = rows.find((x) => x.parent_id === null)!
      expect(rows.some((x) => x.parent_id === parent.id)).toBe(true)
      await until(r.env, at(parent.id, 'dormant', 'child_producing'), 90_000, 'dormant/child_producing')
      r.mock.release()
    },
  )

  concurrentCase('bad_stream: a cut stream is retried, a garbage chunk is the error cast shows', async () => {
    const r = await setup(
      'bad',
      sequence([{kind: 'truncated', text: 'Cut off mid'}], {after: {kind: 'garbage', text: 'Garbled but whole answer.'}}),
    )
    await startTui(r, 'Say something')
    await r.mock.waitMain(1)
    // OpenCode retries the cut stream (nothing in the db), then keeps the text before the garbage
    // chunk and stores an UnknownError "JSON parsing failed": cast reads that as the error.
    await r.mock.waitMain(2, 90_000)
    const [ses] = await waitFile('the session row', () => topSessions(r.h).length === 1 && topSessions(r.h))
    const stored = await waitFile(
      'the stored error',
      () =>
        dbAll(
          r.h,
          `SELECT json_extract(data,'$.error.name') AS n, json_extract(data,'$.error.data.message') AS m FROM message WHERE session_id = ? AND json_extract(data,'$.error') IS NOT NULL`,
          ses!.id,
        )[0],
      60_000,
    )
    expect(stored.n).toBe('UnknownError')
    const s = await until(r.env, at(ses!.id, 'needs_input', 'error'), 90_000, 'needs_input/error')
    expect(String((await explainFact(r.env, s.id, 'error')).value)).toMatch(/JSON parsing failed/)
  })
})

function spawnHeadless(r: Run, prompt: string) {
  const env = r.h.agentEnv({PWD: r.h.project})
  const child = spawn(OPENCODE, ['run', prompt], {cwd: r.h.project, env, stdio: ['ignore', 'pipe', 'pipe']})
  atCaseEnd(cleanups, () => killTree(child.pid!))
  return child
}

function runHeadless(r: Run, prompt: string): Promise<{code: number | null; stdout: string; stderr: string}> {
  const child = spawnHeadless(r, prompt)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c) => (stdout += String(c)))
  child.stderr!.on('data', (c) => (stderr += String(c)))
  return new Promise((resolve) => child.on('exit', (code) => resolve({code, stderr, stdout})))
}
