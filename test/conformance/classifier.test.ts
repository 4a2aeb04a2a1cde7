/**
 * The settle classifier on the real Claude Code (issue 14): a turn that ends with no declaration
 * is judged once by the configured command. The working example, examples/settle-classifier.mjs,
 * asks `claude -p` (the real CLI) with a small model; the mock model answers the verdict. A
 * delivered verdict reads done/delivered; a failing classifier changes nothing and `cast
 * explain` says so. The classifier runs beside the ingester of a `cast sessions -w`.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'

import {type CastSession, runCast, until, Watch} from './harness/cast.js'
import {type Mock, type Script, startMock, text} from './harness/mock/server.js'
import type {AgentPane} from './harness/tmux.js'
import {API_KEY, CLAUDE, type ClaudeHome, makeClaudeHome} from './claude_code/setup.js'

const PROMPT_READY = /manual mode on/
const EXAMPLE = path.resolve('examples/settle-classifier.mjs')
/** The first words of the example's prompt to the model. */
const CLASSIFIER_PROMPT = "You are cast's settle classifier"
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

interface Run {
  readonly h: ClaudeHome
  readonly mock: Mock
  readonly pane: AgentPane
  readonly watch: Watch
}

async function start(name: string, script: Script, command: string[], timeout = '90s'): Promise<Run> {
  const h = makeClaudeHome(name)
  const mock = await startMock(script)
  fs.mkdirSync(h.castHome, {recursive: true})
  fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify({settle_classifier: {command, timeout}}))
  // The ingester (and so the classifier) runs in this watch; the example's `claude -p` reaches the mock.
  const watch = new Watch(
    {...h.cast, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: mock.url, CAST_CLASSIFIER_CLAUDE: CLAUDE, DISABLE_TELEMETRY: '1'},
    ['--since', '0'],
  )
  let pane: AgentPane | undefined
  cleanups.push(async () => {
    await watch.stop()
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
  pane = h.tmux.open([CLAUDE, '--permission-mode', 'default'], {cwd: h.project, env: h.agentEnv(mock.url)})
  await h.tmux.waitFor(pane, PROMPT_READY, 60_000)
  return {h, mock, pane, watch}
}

const mine = (r: Run) => (s: CastSession) => s.agent === 'claude_code' && !s.parent_id && s.pid === r.pane.pid

describe('claude_code', () => {
  it('plain: a configured classifier (examples/settle-classifier.mjs on claude -p) turns an undeclared delivered turn into done/delivered', async () => {
    const r = await start(
      'clsok',
      (req) => {
        if (req.side) return undefined
        if (req.lastUserText.includes(CLASSIFIER_PROMPT))
          return text('{"verdict":"delivered","why":"It listed the project files as asked."}')
        return text('The project holds one README.md.')
      },
      [process.execPath, EXAMPLE],
    )
    r.h.tmux.type(r.pane, 'what files are in this project?')
    await r.h.tmux.waitFor(r.pane, /one README\.md/, 90_000)
    const s = await until(r.h.cast, (x) => mine(r)(x) && x.state === 'done' && x.reason === 'delivered', 120_000, 'done/delivered')
    // The classifier was asked once, with the user's prompt and the agent's last message.
    const asked = r.mock.requests.filter((q) => q.lastUserText.includes(CLASSIFIER_PROMPT))
    expect(asked).toHaveLength(1)
    expect(asked[0]!.lastUserText).toContain('what files are in this project?')
    expect(asked[0]!.lastUserText).toContain('The project holds one README.md.')
    // The watch streamed the change, and explain names the classifier as what decided.
    await r.watch.wait((l) => l.id === s.id && l.to === 'done' && l.reason === 'delivered', 90_000)
    const ex = await runCast(['explain', s.id, '--json'], {env: r.h.cast})
    expect(ex.code, ex.stderr).toBe(0)
    const rest = (JSON.parse(ex.stdout) as {rest: {decided_by: string; classifier: {verdict: string; why: string}}}).rest
    expect(rest.decided_by).toBe('classifier')
    expect(rest.classifier).toMatchObject({verdict: 'delivered', why: 'It listed the project files as asked.'})
    // The classifier's own `claude -p` left no session behind for cast to list.
    const all = await runCast(['sessions', '--json', '--all'], {env: r.h.cast})
    expect(
      (JSON.parse(all.stdout) as {sessions: CastSession[]}).sessions.filter((x) => x.agent === 'claude_code' && !x.parent_id),
    ).toHaveLength(1)
  })

  it('plain: a failing classifier changes nothing: the turn stays needs_input/settled and cast explain shows the failure', async () => {
    const r = await start('clsfail', (req) => (req.side ? undefined : text('Here is my answer.')), [
      '/bin/sh',
      '-c',
      'cat >/dev/null; echo "model unreachable" >&2; exit 3',
    ])
    r.h.tmux.type(r.pane, 'answer me')
    await r.h.tmux.waitFor(r.pane, /Here is my answer\./, 90_000)
    const s = await until(r.h.cast, (x) => mine(r)(x) && x.state === 'needs_input' && x.reason === 'settled', 60_000, 'needs_input/settled')
    // Wait for the classifier's outcome to be recorded, then check nothing moved.
    const end = Date.now() + 60_000
    type Rest = {decided_by: string; classifier: {error: string | null} | null} | null
    let rest: Rest = null as Rest
    while (Date.now() < end) {
      const ex = await runCast(['explain', s.id, '--json'], {env: r.h.cast})
      rest = (JSON.parse(ex.stdout) as {rest: Rest}).rest
      if (rest?.classifier?.error) break
      await new Promise((res) => setTimeout(res, 500))
    }

    expect(rest?.decided_by).toBe('fallback')
    expect(rest?.classifier?.error).toMatch(/exited 3: model unreachable/)
    const again = await until(r.h.cast, (x) => mine(r)(x), 10_000)
    expect([again.state, again.reason]).toEqual(['needs_input', 'settled'])
    const human = await runCast(['explain', s.id], {env: r.h.cast})
    expect(human.stdout).toMatch(/Rest verdict: decided by fallback — the settle classifier failed/)
  })
})
