/**
 * Claude Code 2.1.328's dialog for an AskUserQuestion of several questions, one a multiple
 * choice, as a person answers it (docs/agents/claude-code.md "Screens"): tabs with a chip per
 * question, Enter picks an option and moves on, Enter ticks a box of a multiple choice and Enter
 * on its `Submit` line moves on, then `Review your answers` and `1. Submit answers`. What cast
 * keeps of the call (`questions`), cast choose's answer and cast web's rest on this; a new CLI
 * version that draws or keys it otherwise fails here first.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {runCast, until} from './harness/cast.js'
import {sequence, startMock, text, tool} from './harness/mock/server.js'
import {askMany} from './claude_code/ask-many.js'
import {CLAUDE, makeClaudeHome} from './claude_code/setup.js'

const ASK = askMany()

const cleanups: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

describe('claude_code', () => {
  it('ask-many: several questions and a multiple choice are one dialog of tabs, answered with Enter', async () => {
    const h = makeClaudeHome('askmany')
    const mock = await startMock(sequence([tool('AskUserQuestion', ASK), text('Noted.')]))
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
        // A file the agent was still writing as it was killed: the folder is under the OS's tmp.
      }
    })
    await h.tmux.waitFor(pane, /manual mode on/, 60_000)
    h.tmux.type(pane, 'ask me something')
    let screen = await h.tmux.waitFor(pane, /Enter to select · Tab\/Arrow keys to navigate/, 60_000)
    expect(screen).toMatch(/☐ Colour {2}☐ Sizes {2}✔ Submit/)
    expect(screen).toMatch(/Which colour should the button be\?\n(?:\s*\n)*\s*❯ 1\. Red\n/)
    // cast keeps every question (not `choices`): cast choose takes one answer per question
    // (test/conformance/claude_code_choose_many.test.ts) and refuses one answer for two, typing nothing.
    const s = await until(h.cast, (x) => x.agent === 'claude_code' && x.reason === 'question', 90_000, 'the question')
    const refused = await runCast(['choose', s.id, '1'], {env: h.cast})
    expect(refused.code, refused.stderr).toBe(2)
    expect(refused.stderr).toMatch(/The ask has 2 questions: give one answer for each/)
    await sleep(1500) // the dialog's guard against stray typing
    h.tmux.keys(pane, 'Down')
    await sleep(400)
    h.tmux.keys(pane, 'Enter')
    await h.tmux.waitFor(pane, /☒ Colour {2}☐ Sizes/)
    screen = h.tmux.capture(pane)
    expect(screen).toMatch(/Which sizes should it come in\?/)
    expect(screen).toMatch(/❯ 1\. \[ \] Small/)
    h.tmux.keys(pane, 'Enter')
    await h.tmux.waitFor(pane, /❯ 1\. \[✔\] Small/)
    for (const k of ['Down', 'Down', 'Enter']) {
      h.tmux.keys(pane, k)
      await sleep(400)
    }
    await h.tmux.waitFor(pane, /❯ 3\. \[✔\] Huge/)
    for (const k of ['Down', 'Down']) {
      h.tmux.keys(pane, k)
      await sleep(400)
    }
    await h.tmux.waitFor(pane, /❯\s+Submit/)
    h.tmux.keys(pane, 'Enter')
    await h.tmux.waitFor(pane, /Review your answers/)
    screen = h.tmux.capture(pane)
    expect(screen).toMatch(/● Which colour should the button be\?\s*\n\s*→ Blue/)
    expect(screen).toMatch(/● Which sizes should it come in\?\s*\n\s*→ Small, Huge/)
    expect(screen).toMatch(/❯ 1\. Submit answers/)
    h.tmux.keys(pane, 'Enter')
    await h.tmux.waitFor(pane, /Noted\./)
    const dir = path.join(h.home, '.claude', 'projects')
    const file = fs.readdirSync(dir, {encoding: 'utf8', recursive: true}).find((f) => f.endsWith('.jsonl'))!
    expect(fs.readFileSync(path.join(dir, file), 'utf8')).toContain(
      String.raw`Your questions have been answered: \"Which colour should the button be?\"=\"Blue\", \"Which sizes should it come in?\"=\"Small, Huge\"`,
    )
  })
})
