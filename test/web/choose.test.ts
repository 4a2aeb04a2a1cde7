/**
 * An AskUserQuestion from the page: the fake Claude Code in a private tmux shows Claude Code's
 * question menu (FAKE_QUESTION_MENU=1); the answer view lists the options the transcript gives
 * (labels and descriptions, as text: one label is HTML), a digit picks one, and the agent gets
 * that option as its answer through its own menu. `cast choose` refuses once it is answered.
 */
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const Q = '5e1f0000-0000-4000-8000-00000000c001'
const HOSTILE = '<img src=x onerror="window.__xss=1">Blue'

describe('cast web answers an AskUserQuestion with one of its options', () => {
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
    tmux = startTmux({...h.env, FAKE_DELAY_MS: '100', FAKE_OPTION_B: HOSTILE, FAKE_QUESTION_MENU: '1'})
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

  it('lists the options as text, and a digit picks one in the agent’s own menu', async () => {
    fakeInWindow(tmux, {cwd: proj, prompt: 'ask which colour', sessionId: Q})
    const id = await waitFor(async () => {
      const s = (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).find((x) => x.native_id === Q)
      return s?.reason === 'question' ? (s.id as string) : null
    }, 60_000)
    const page = await inboxPage(await signIn(browser, web), web)
    await page.waitForSelector(`.card[data-id="${id}"]`)
    await page.click(`.card[data-id="${id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${id}"]`)
    await page.waitForSelector('.choice')
    const shown = await page.$$eval('.choice', (els) => els.map((e) => e.textContent))
    expect(shown).toEqual(['1. Red — the warm one', `2. ${HOSTILE} — the cool one`])
    // The label is text: no element was made of it, nothing ran.
    expect(await page.$$('.choice img')).toHaveLength(0)
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined()
    // Out of range: nothing happens (there is no option 7); then 2 picks the second.
    await page.keyboard.press('7')
    await page.keyboard.press('2')
    await waitFor(() => userTexts(h.home, proj, Q).find((t) => t.includes(`="${HOSTILE}"`)) ?? null, 60_000).catch(async (error: Error) => {
      const screen = tmux.tmux(['capture-pane', '-p', '-t', 'base:1'])
      throw new Error(`${error.message}; page: ${await page.textContent('#status')}; screen:\n${screen}`)
    })
    expect(userTexts(h.home, proj, Q).some((t) => t.includes('="Red"'))).toBe(false)
    await page.waitForFunction(() => /^Chose 2\. /.test((globalThis as any).document.querySelector('#status')?.textContent ?? ''), null, {
      timeout: 60_000,
    })
    expect(await page.evaluate(() => (globalThis as any).__xss)).toBeUndefined()
    // A malformed body is a 400 with the error envelope; nothing runs.
    const bad = await page.evaluate(async (sid) => {
      const post = async (body: unknown) => {
        const r = await fetch('/api/choose', {
          body: JSON.stringify(body),
          headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
          method: 'POST',
        })
        return [r.status, ((await r.json()) as any).error?.exit_code]
      }
      return [await post({choice: '2', session: sid}), await post({choice: 1, session: '--help'}), await post({choice: 0, session: sid})]
    }, id)
    expect(bad).toEqual([
      [400, 2],
      [400, 2],
      [400, 2],
    ])
    // Answered: the CLI refuses to pick again, and types nothing.
    const again = await runCast(['choose', id, '1'], {env})
    expect(again.code, again.stderr).toBe(5)
    expect(again.stderr).toMatch(/No question is open|does not show its question/)
    expect((await runCast(['choose', id, 'x'], {env})).code).toBe(2)
  })
})
