/**
 * cast web's answer view on Claude Code 2.1.328's AskUserQuestion of two questions, the second a
 * multiple choice, in Debian's Chromium: a radio per option of the first, a box per option of the
 * second, one Send; the model receives the chosen answers. And the refusal: the first question
 * answered in the terminal after the page drew it, Send stops before any key and the page says why.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {inboxPage, launchChromium, saveArtifact, signIn, startWeb} from '../web/helpers.js'
import {until} from './harness/cast.js'
import {type MockRequest, sequence, startMock, text, tool} from './harness/mock/server.js'
import {askMany} from './claude_code/ask-many.js'
import {CLAUDE, makeClaudeHome} from './claude_code/setup.js'

const HOSTILE = '<img src=x onerror="window.__xss=1">Huge'
const ASK = askMany(HOSTILE)

const cleanups: (() => Promise<void> | void)[] = []
let browser: Browser
beforeAll(async () => {
  browser = await launchChromium()
}, 60_000)
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
  await browser?.close()
})

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** Claude Code in tmux asked the two questions, cast web serving it, its answer view open. */
async function opened(name: string) {
  const h = makeClaudeHome(name)
  const mock = await startMock(sequence([tool('AskUserQuestion', ASK), text('Noted.')]))
  const pane = h.tmux.open([CLAUDE, '--permission-mode', 'default'], {cwd: h.project, env: h.agentEnv(mock.url)})
  const web = await startWeb(h.cast)
  cleanups.push(async () => {
    await web.stop()
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
  await h.tmux.waitFor(pane, /Enter to select · Tab\/Arrow keys to navigate/, 60_000)
  const s = await until(h.cast, (x) => x.agent === 'claude_code' && x.reason === 'question', 90_000, 'the question')
  const page = await inboxPage(await signIn(browser, web), web)
  const card = `.card[data-id="${s.id}"]`
  await page.waitForSelector(card)
  await page.click(card)
  if (!(await page.isVisible('.answer-title'))) await page.click(card)
  await page.waitForSelector('.questions .send-answers')
  return {h, mock, page, pane}
}

/** Tick Blue, Small and the hostile third size. */
async function pick(page: Page): Promise<void> {
  await page.check('input[name="q0"][value="2"]')
  expect(await page.isDisabled('.send-answers')).toBe(true)
  await page.check('input[name="q1"][value="1"]')
  await page.check('input[name="q1"][value="3"]')
  expect(await page.isDisabled('.send-answers')).toBe(false)
}

const status = (page: Page, re: RegExp) =>
  page.waitForFunction((src) => new RegExp(src).test((globalThis as any).document.querySelector('#status')?.textContent ?? ''), re.source, {
    timeout: 60_000,
  })

const toolResult = (requests: readonly MockRequest[]): string | null =>
  requests.filter((r) => !r.side && r.toolResults > 0).map((r) => JSON.stringify(r.body))[0] ?? null

describe('claude_code', () => {
  it('web-choose-many: one control per question, one Send; the model gets the answers', async () => {
    const {h, mock, page, pane} = await opened('webmany')
    const labels = await page.$$eval('.questions .pick-option', (els) => els.map((e) => e.textContent))
    expect(labels).toContain(` 3. ${HOSTILE} — for walls`)
    expect(await page.$$('.questions img')).toHaveLength(0)
    expect(await page.$$eval('input[name="q0"]', (els) => els.map((e) => e.getAttribute('type')))).toEqual(['radio', 'radio'])
    expect(await page.$$eval('input[name="q1"]', (els) => els.map((e) => e.getAttribute('type')))).toEqual([
      'checkbox',
      'checkbox',
      'checkbox',
    ])
    await pick(page)
    await page.screenshot({fullPage: true, path: saveArtifact('web-choose-many.png')})
    await page.click('.send-answers')
    await status(page, /^Answered: Blue; Small, /).catch(async (error: Error) => {
      throw new Error(`${error.message}\n${await page.textContent('#status')}\n${h.tmux.capture(pane)}`)
    })
    await h.tmux.waitFor(pane, /Noted\./, 60_000)
    expect(toolResult(mock.requests)).toContain(String.raw`\"Which colour should the button be?\"=\"Blue\"`)
    expect(toolResult(mock.requests)).toContain(String.raw`\"Which sizes should it come in?\"=\"Small, `)
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined()
  })

  it('web-choose-many refused: the first question answered in the terminal after the page drew it; no key sent', async () => {
    const {h, page, pane} = await opened('webmanyrefused')
    await pick(page)
    await sleep(1500) // the dialog's guard against stray typing
    h.tmux.keys(pane, 'Enter') // Red, by hand
    await h.tmux.waitFor(pane, /☒ Colour {2}☐ Sizes/)
    const before = h.tmux.capture(pane)
    await page.click('.send-answers')
    await status(page, /^Choose refused: Session \w+'s screen, tmux .* shows question 1 answered .*: nothing sent\.$/)
    await sleep(1000)
    expect(h.tmux.capture(pane).replace(/\s+$/, '')).toBe(before.replace(/\s+$/, ''))
  })
})
