/**
 * An AskUserQuestion with several questions, one of them a multiple choice: the fake Claude Code
 * in a private tmux draws Claude Code 2.1.328's tabbed dialog (FAKE_MULTI_ASK=1). The answer view
 * shows every question with its options as text (one label is HTML), says to answer in the
 * terminal, and offers no option to click; `cast choose` refuses (exit 5) and types nothing.
 */
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, saveArtifact, signIn, startWeb, type WebServer} from './helpers.js'

const Q = '5e1f0000-0000-4000-8000-00000000c002'
const HOSTILE = '<img src=x onerror="window.__xss=1">Large \u001B[31m'

describe('cast web shows an AskUserQuestion of several questions, to answer in the terminal', () => {
  let h: TempHome
  let tmux: TmuxServer
  let env: Record<string, string>
  let proj: string
  let web: WebServer
  let browser: Browser

  beforeAll(async () => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    tmux = startTmux({...h.env, FAKE_DELAY_MS: '100', FAKE_MULTI_ASK: '1', FAKE_OPTION_B: HOSTILE, FAKE_QUESTION_MENU: '1'})
    env = {...h.env, ...tmux.env}
    web = await startWeb(env)
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    tmux?.kill()
    h?.cleanup()
  })

  it('lists every question and its options as text, with no option to pick', async () => {
    fakeInWindow(tmux, {cwd: proj, prompt: 'ask which colour', sessionId: Q})
    const id = await waitFor(async () => {
      const s = (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).find((x) => x.native_id === Q)
      return s?.reason === 'question' ? (s.id as string) : null
    }, 60_000)
    const page = await inboxPage(await signIn(browser, web), web)
    await page.waitForSelector(`.card[data-id="${id}"]`)
    await page.click(`.card[data-id="${id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${id}"]`)
    await page.waitForSelector('.questions .asked')
    const asked = await page.$$eval('.questions .asked', (els) =>
      els.map((e) => ({
        head: e.querySelector('h3')?.textContent,
        options: [...e.querySelectorAll('li')].map((li) => li.textContent),
        question: e.querySelector('.question')?.textContent,
      })),
    )
    expect(asked).toEqual([
      {
        head: '1/2 · Choice · pick one',
        options: ['1. Red — the warm one', `2. ${HOSTILE.replace('\u001B', '^[')} — the cool one`],
        question: 'Which way should I go on: ask which colour?',
      },
      {
        head: '2/2 · Sizes · pick any',
        options: ['1. ☐ Small — for phones', `2. ☐ ${HOSTILE.replace('\u001B', '^[')} — for desks`],
        question: 'Which sizes should it come in?',
      },
    ])
    await page.screenshot({fullPage: true, path: saveArtifact('ask-many.png')})
    expect(await page.textContent('.questions .in-terminal')).toMatch(/^Answer these questions in the agent's terminal/)
    // Text only: no element was made of a label, nothing ran, no option is a button.
    expect(await page.$$('.questions img')).toHaveLength(0)
    expect(await page.$$('.choice')).toHaveLength(0)
    await page.keyboard.press('1')
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined()
    // The dialog is still open on the agent's screen: nothing was typed into it.
    expect(tmux.tmux(['capture-pane', '-p', '-t', 'base:1'])).toMatch(/☐ Choice {2}☐ Sizes {2}✔ Submit/)
    const refused = await runCast(['choose', id, '1'], {env})
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr).toMatch(/several questions or a multiple choice are answered in its terminal/)
  })
})
