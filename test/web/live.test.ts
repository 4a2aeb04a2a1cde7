/**
 * `cast web` over real agent processes (the fake Claude Code of test/fakes in a private tmux):
 * from the page, y approves and n denies a real permission prompt (cast approve's and deny's
 * checks, in the server's process), the composer types a reply into the agent's terminal as its
 * next turn (cast send's), and the cards move live as the agents append to their transcripts.
 */
import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const A = '5e1f0000-0000-4000-8000-00000000d001'
const B = '5e1f0000-0000-4000-8000-00000000d002'
const C = '5e1f0000-0000-4000-8000-00000000d003'

describe('cast web answers real agents', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string
  let web: WebServer
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...server.env}
    web = await startWeb(env)
    browser = await launchChromium()
    context = await signIn(browser, web)
    page = await inboxPage(context, web)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    server?.kill()
    h?.cleanup()
  })

  /** The id cast gives a native session id, from the listing. */
  const castId = async (native: string): Promise<string> =>
    waitFor(
      async () => (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).find((s) => s.native_id === native)?.id ?? null,
      60_000,
    )
  /** Wait until the page shows the card in this section, with this state:reason. */
  const cardIn = (id: string, bucket: string, stateReason?: string) =>
    page
      .waitForFunction(
        ([i, b, sr]) => {
          const el = (globalThis as any).document.querySelector(`section[data-bucket="${b}"] .card[data-id="${i}"]`)
          return el !== null && (sr === '' || el.querySelector('.state')?.textContent === sr)
        },
        [id, bucket, stateReason ?? ''] as const,
        {timeout: 60_000},
      )
      .catch(async (error: Error) => {
        const shown = await page.evaluate(() => (globalThis as any).document.querySelector('main')?.innerText)
        throw new Error(`${error.message}\npage:\n${shown}\ncli:\n${(await runCast(['sessions'], {env})).stdout}`)
      })
  const open = async (id: string) => {
    await page.click(`.card[data-id="${id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${id}"]`)
    await page.waitForSelector('.answer-title')
  }

  it('y approves and n denies a permission prompt from the page; the cards move live', async () => {
    fakeInWindow(server, {cwd: proj, prompt: 'tool: make build', sessionId: A})
    fakeInWindow(server, {cwd: proj, prompt: 'tool: rm -rf build', sessionId: B})
    const a = await castId(A)
    const b = await castId(B)
    // The page was open before the agents started: the cards arrive by the stream alone.
    await cardIn(a, 'questions', 'needs input:approval')
    await cardIn(b, 'questions', 'needs input:approval')
    expect(await page.textContent(`.card[data-id="${a}"] .ask`)).toBe('approve Bash?')

    await open(a)
    // The dialog as the agent's screen shows it: the command it asks to run.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.tool-input')?.textContent?.includes('make build'), null, {
      timeout: 30_000,
    })
    await page.keyboard.press('y')
    await waitFor(() => userTexts(h.home, proj, A).includes('[answer] ran make build') || null, 60_000)
    // Answering advanced to the next question: B's prompt.
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector('.tool-input')?.textContent?.includes('rm -rf build'),
      null,
      {
        timeout: 60_000,
      },
    )
    await page.keyboard.press('n')
    await waitFor(() => userTexts(h.home, proj, B).includes('[answer] User rejected tool use') || null, 60_000)
    expect(userTexts(h.home, proj, B).some((t) => t.startsWith('[answer] ran'))).toBe(false)
    // The page reports the verb's result, and has advanced (to A, which waits on you again).
    await page.waitForFunction(() => /^Deny: /.test((globalThis as any).document.querySelector('#status')?.textContent ?? ''), null, {
      timeout: 60_000,
    })
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    await page.waitForSelector('#list:not([hidden])')
    // The agents wrote their turns to their transcripts: both cards leave Questions, live.
    await cardIn(a, 'needs_input', 'needs input:settled')
    await cardIn(b, 'needs_input')
  })

  it('a reply from the composer reaches the agent as its next turn; a second approve is refused with why', async () => {
    if (await page.isVisible('.answer-title')) await page.click('.back')
    fakeInWindow(server, {cwd: proj, prompt: 'write the changelog', sessionId: C})
    const c = await castId(C)
    await cardIn(c, 'needs_input', 'needs input:settled')
    await open(c)
    await page.fill('.composer', 'and the release notes')
    await page.keyboard.press('Enter')
    await waitFor(() => userTexts(h.home, proj, C).includes('and the release notes') || null, 60_000)
    await page.waitForFunction(() => /^Sent via/.test((globalThis as any).document.querySelector('#status')?.textContent ?? ''), null, {
      timeout: 60_000,
    })
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    // Approve on a session with no prompt open: refused, with the CLI's reason, nothing typed.
    const a = await castId(A)
    const before = userTexts(h.home, proj, A)
    const r = await page.evaluate(
      async (id) =>
        (
          await fetch('/api/verb', {
            body: JSON.stringify({session: id, verb: 'approve'}),
            headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
            method: 'POST',
          })
        ).json(),
      a,
    )
    expect(r, JSON.stringify(r)).toHaveProperty('error')
    expect((r as any).error.exit_code).toBe(5)
    expect((r as any).error.message).toMatch(/No permission prompt is open/)
    expect(userTexts(h.home, proj, A)).toEqual(before)
  })
})
