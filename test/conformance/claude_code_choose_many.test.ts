/**
 * `cast choose SESSION 2 1,3` on Claude Code 2.1.328's dialog for an AskUserQuestion of two
 * questions, the second a multiple choice (docs/agents/claude-code.md "Screens"): cast answers it
 * key by key, reading the screen before each, and the model receives the tool result with the
 * chosen answers. And the refusal: the first question answered in the terminal meanwhile, cast
 * stops before typing anything (exit 5) and the dialog stays as the person left it.
 */
import {afterAll, describe, expect, it} from 'vitest'

import {runCast, until} from './harness/cast.js'
import {type MockRequest, sequence, startMock, text, tool} from './harness/mock/server.js'
import {askMany} from './claude_code/ask-many.js'
import {CLAUDE, makeClaudeHome} from './claude_code/setup.js'

const ASK = askMany()
const ANSWERED = String.raw`Your questions have been answered: "Which colour should the button be?"="Blue", "Which sizes should it come in?"="Small, Huge"`

const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Claude Code in tmux, asked the two questions; the session as cast lists it. */
async function asked(name: string, ask: Record<string, unknown> = ASK, footer = /Enter to select · Tab\/Arrow keys to navigate/) {
  const h = makeClaudeHome(name)
  const mock = await startMock(sequence([tool('AskUserQuestion', ask), text('Noted.')]))
  const pane = h.tmux.open([CLAUDE, '--permission-mode', 'default'], {cwd: h.project, env: h.agentEnv(mock.url)})
  cleanups.push(async () => {
    try {
      process.kill(pane.pid, 'SIGKILL')
    } catch {
      // Gone already.
    }
    h.tmux.stop()
    await mock.close()
    try {
      h.cleanup()
    } catch {
      // A file the agent was still writing as it was killed.
    }
  })
  await h.tmux.waitFor(pane, /manual mode on/, 60_000)
  h.tmux.type(pane, 'ask me something')
  await h.tmux.waitFor(pane, footer, 60_000)
  const s = await until(h.cast, (x) => x.agent === 'claude_code' && x.reason === 'question', 90_000, 'the question')
  return {h, mock, pane, s}
}

/** What the model was sent as the AskUserQuestion's result, if it was. */
const toolResultText = (requests: readonly MockRequest[]): string | null => {
  for (const r of requests) {
    if (r.side || r.toolResults === 0) continue
    const body = JSON.stringify(r.body)
    if (body.includes('tool_result')) return body
  }
  return null
}

describe('claude_code', () => {
  it('choose-many: cast choose answers both questions, the multiple choice with two ticks, and the model gets them', async () => {
    const {h, mock, pane, s} = await asked('choosemany')
    const r = await runCast(['choose', s.id, '2', '1,3', '--json'], {env: h.cast})
    expect(r.code, `${r.stderr}\n${h.tmux.capture(pane)}`).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.answers).toEqual([
      {choices: [2], labels: ['Blue'], question: 'Which colour should the button be?'},
      {choices: [1, 3], labels: ['Small', 'Huge'], question: 'Which sizes should it come in?'},
    ])
    await h.tmux.waitFor(pane, /Noted\./, 60_000)
    const sent = toolResultText(mock.requests)
    expect(sent).not.toBeNull()
    // The body is JSON: the tool result's quotes are escaped in it.
    expect(sent).toContain(JSON.stringify(ANSWERED).slice(1, -1))
  })

  it('choose-many refused: the first question answered in the terminal meanwhile, cast types nothing', async () => {
    const {h, pane, s} = await asked('choosemanyrefused')
    await sleep(1500) // the dialog's guard against stray typing
    h.tmux.keys(pane, 'Enter') // Red, by hand
    await h.tmux.waitFor(pane, /☒ Colour {2}☐ Sizes/)
    const before = h.tmux.capture(pane)
    const r = await runCast(['choose', s.id, '2', '1,3'], {env: h.cast})
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^cast: Session \w+'s screen, tmux .*question 1 answered .*: nothing sent\.$/)
    await sleep(1000)
    const after = h.tmux.capture(pane)
    expect(after).toMatch(/❯ 1\. \[ \] Small/)
    expect(after).not.toMatch(/\[✔\]/)
    expect(after.replace(/\s+$/, '')).toBe(before.replace(/\s+$/, ''))
  })

  it('choose-many: a multiple choice alone, two ticks', async () => {
    const {h, mock, pane, s} = await asked('choosemulti', {questions: [ASK.questions[1]]}, /Enter to select · /)
    const r = await runCast(['choose', s.id, '2,3'], {env: h.cast})
    expect(r.code, r.stderr).toBe(0)
    await h.tmux.waitFor(pane, /Noted\./, 60_000)
    expect(toolResultText(mock.requests)).toContain(String.raw`\"Which sizes should it come in?\"=\"Large, Huge\"`)
  })

  it('choose-many stops part-way: the second question is not drawn as cast read it, no key after the first answer', async () => {
    // A label of two lines: the dialog cannot draw it on its option's line as the ask says it.
    const sizes = {
      ...ASK.questions[1]!,
      options: [{description: 'for phones', label: 'Small\nsmaller'}, ...ASK.questions[1]!.options.slice(1)],
    }
    const {h, pane, s} = await asked('choosemanypartway', {questions: [ASK.questions[0], sizes]})
    const r = await runCast(['choose', s.id, '2', '1,3'], {env: h.cast})
    expect(r.code, r.stderr).toBe(5)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr.trim()).toMatch(/does not show "1\. Small\\nsmaller" on question 2: stopped after Down Enter\.$/)
    const at = h.tmux.capture(pane)
    expect(at).toMatch(/☒ Colour {2}☐ Sizes/)
    expect(at).not.toMatch(/\[✔\]/)
    await sleep(1000)
    expect(h.tmux.capture(pane)).toBe(at)
  })
})
