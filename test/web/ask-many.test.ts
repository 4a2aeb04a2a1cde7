/**
 * An AskUserQuestion with several questions, one of them a multiple choice: the fake Claude Code
 * in a private tmux draws Claude Code 2.1.328's tabbed dialog (FAKE_MULTI_ASK=1). The answer view
 * shows every question with a radio or box per option, labels as text (one is HTML with an escape
 * sequence); the fake draws that label without its escape, so cast choose (from the page or the
 * CLI) finds the screen does not match and stops before the first key (exit 5).
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

  it('lists every question with a control per option, labels as text; a Send the screen does not match types nothing', async () => {
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
        inputs: [...e.querySelectorAll('input')].map((i) => i.getAttribute('type')),
        options: [...e.querySelectorAll('li')].map((li) => li.textContent),
        question: e.querySelector('.question')?.textContent,
      })),
    )
    const shown = HOSTILE.replace('\u001B', '^[')
    expect(asked).toEqual([
      {
        head: '1/2 · Choice · pick one',
        inputs: ['radio', 'radio'],
        options: [' 1. Red — the warm one', ` 2. ${shown} — the cool one`],
        question: 'Which way should I go on: ask which colour?',
      },
      {
        head: '2/2 · Sizes · pick any',
        inputs: ['checkbox', 'checkbox'],
        options: [' 1. Small — for phones', ` 2. ${shown} — for desks`],
        question: 'Which sizes should it come in?',
      },
    ])
    // Text only: no element was made of a label, nothing ran.
    expect(await page.$$('.questions img')).toHaveLength(0)
    expect(await page.isDisabled('.send-answers')).toBe(true)
    await page.keyboard.press('1')
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined()

    // A malformed answer is a 400 with the error envelope; nothing runs.
    const bad = await page.evaluate(async (sid) => {
      const post = async (body: unknown) => {
        const r = await fetch('/api/choose', {
          body: JSON.stringify(body),
          headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
          method: 'POST',
        })
        return [r.status, ((await r.json()) as any).error?.exit_code]
      }
      return Promise.all(
        [
          [[0], [1]],
          [['2'], [1]],
          [[1], []],
          [[1.5], [1]],
          '2 1,3',
          [[1], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]],
        ].map((answers) => post({answers, session: sid})),
      )
    }, id)
    expect(bad).toEqual(Array.from({length: 6}, () => [400, 2]))
    // With the ask as the page drew it: answers that do not fit it are a usage refusal; an ask the
    // page drew that is not the one open now (another option list) is refused, nothing sent.
    const [unfit, stale] = await page.evaluate(async (sid) => {
      const asked = JSON.parse((globalThis as any).document.querySelector('.questions').getAttribute('data-ask'))
      const post = async (body: unknown) => {
        const r = await fetch('/api/choose', {
          body: JSON.stringify(body),
          headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
          method: 'POST',
        })
        const e = ((await r.json()) as any).error
        return [r.status, e?.exit_code, e?.message]
      }
      const older = asked.map((q: any, i: number) => (i === 1 ? {...q, options: ['Small', 'Medium']} : q))
      return [await post({answers: [[1, 2], [1]], asked, session: sid}), await post({answers: [[1], [1]], asked: older, session: sid})]
    }, id)
    expect(stale).toEqual([409, 5, 'The question changed since the page drew it: nothing was sent.'])
    expect(unfit).toEqual([400, 2, expect.stringMatching(/^Question 1 takes one option/)])

    // The agent's screen draws the second label without its escape sequence: not the option cast
    // read, so cast choose stops before the first key and the page says why, as text.
    const screen = tmux.tmux(['capture-pane', '-p', '-t', 'base:1'])
    expect(screen).toMatch(/☐ Choice {2}☐ Sizes {2}✔ Submit/)
    // From the keyboard alone: the first radio has the focus; ↓ picks the second, Tab, Space ticks
    // the first box, Tab Tab reaches Send, Enter sends.
    const focused = () =>
      page.evaluate(() => {
        const e = (globalThis as any).document.activeElement
        return `${e?.getAttribute('name') ?? e?.className}=${e?.value ?? ''}`
      })
    expect(await focused()).toBe('q0=1')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Space')
    expect(
      await page.$$eval('.questions input:checked', (els) => els.map((e) => `${e.getAttribute('name')}=${e.getAttribute('value')}`)),
    ).toEqual(['q0=2', 'q1=1'])
    // A redraw of the view (the live stream brings a change: pinned from the CLI) keeps the picks.
    await page.evaluate(() => (globalThis as any).document.querySelector('.questions').setAttribute('data-before', '1'))
    expect((await runCast(['pin', id], {env})).code).toBe(0)
    await page.waitForSelector('.questions:not([data-before])', {timeout: 60_000})
    expect(await page.$$eval('.questions input:checked', (els) => els.length)).toBe(2)
    expect(await page.isDisabled('.send-answers')).toBe(false)
    await page.focus('input[name="q1"][value="1"]')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Tab')
    expect(await focused()).toBe('primary send-answers=')
    await page.keyboard.press('Enter')
    await page.waitForFunction(
      () =>
        /^Choose refused: .*does not show "2\. .*" on question 1: nothing sent\.$/.test(
          (globalThis as any).document.querySelector('#status')?.textContent ?? '',
        ),
      null,
      {timeout: 60_000},
    )
    expect(await page.textContent('#status')).toContain(shown)
    await page.screenshot({fullPage: true, path: saveArtifact('ask-many.png')})
    expect(tmux.tmux(['capture-pane', '-p', '-t', 'base:1'])).toBe(screen)

    // The CLI: one answer for two questions is a usage error; the same refusal, one sanitized line.
    const short = await runCast(['choose', id, '1'], {env})
    expect(short.code, short.stderr).toBe(2)
    expect(short.stderr).toMatch(/The ask has 2 questions: give one answer for each/)
    const refused = await runCast(['choose', id, '2', '1'], {env})
    expect(refused.code, refused.stderr).toBe(5)
    expect(refused.stderr.trim().split('\n')).toHaveLength(1)
    expect(refused.stderr).not.toContain('\u001B')
    expect(tmux.tmux(['capture-pane', '-p', '-t', 'base:1'])).toBe(screen)
  })
})
