/**
 * The page answers a teammate's session through the team store: two machines (each its own
 * HOME, CAST_HOME and identity) on a real PostgreSQL; machine B runs the fake Claude Code in its
 * own tmux and its daemon carries out the team's signed actions; machine A serves `cast web`,
 * opened in Debian's Chromium. An approve from A's page is shown pending until B reports, then
 * "approved on host-b"; one on a prompt already answered at B is shown refused with B's reason.
 * Nothing reads as delivered while B's daemon is stopped.
 */
import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {fakeInWindow, startTmux, type TmuxServer, userTexts} from '../fakes/agents.js'
import {json, killStarted} from '../helpers/cli.js'
import {type Machine, makeMachine, setupSchema, until} from '../team/helpers.js'
import {type Cluster, startCluster} from '../team/pg.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const S1 = '5e1f0000-0000-4000-8000-0000000e0001'
const S3 = '5e1f0000-0000-4000-8000-0000000e0003'
const ID1 = castId('claude_code', S1)
const ID3 = castId('claude_code', S3)

describe('cast web acts on a teammate’s session through the team store', () => {
  let cluster: Cluster
  let a: Machine
  let b: Machine
  let tmux: TmuxServer
  let web: WebServer
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    cluster = await startCluster()
    await setupSchema(cluster)
    a = await makeMachine(cluster, 'host-a', 'ana@example.com')
    b = await makeMachine(cluster, 'host-b', 'bo@example.com')
    tmux = startTmux({...b.env, FAKE_DELAY_MS: '100'})
    fakeInWindow(tmux, {cwd: b.project, prompt: 'tool: make build', sessionId: S1})
    fakeInWindow(tmux, {cwd: b.project, prompt: 'tool: rm -rf build', sessionId: S3})
    await b.startDaemon(tmux.env)
    // Ana owns both sessions on B: she may act on them, and they are in her inbox.
    for (const id of [ID1, ID3])
      await until(`${id} owned on B`, async () => (await b.cast(['own', id, 'ana@example.com'], tmux.env)).code === 0, 90_000)
    web = await startWeb(a.env)
    browser = await launchChromium()
    context = await signIn(browser, web)
    page = await inboxPage(context, web)
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    await b?.stopDaemon().catch(() => {})
    tmux?.kill()
    killStarted()
    await cluster?.destroy()
    a?.h.cleanup()
    b?.h.cleanup()
  }, 180_000)

  const card = (id: string) => `.card[data-id="${id}"]`
  const statusText = () => page.textContent('#status')
  /** Wait until the element shows text matching the pattern. */
  const showing = (selector: string, pattern: string) =>
    page.waitForFunction(
      ([sel, re]) => new RegExp(re).test((globalThis as any).document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern] as const,
      {timeout: 60_000},
    )

  it('shows pending until B confirms, then what B reported: approved, or refused (the prompt was answered)', async () => {
    // Both of B's sessions reach A's page through the team store, as permission prompts, marked host-b.
    await until(
      'both cards on the page, waiting on approval',
      async () => {
        await page.reload()
        await page.waitForSelector('#tally')
        const asks = await page.$$eval('section[data-bucket="questions"] .card', (els) =>
          els.map((e) => `${e.getAttribute('data-id')} ${e.querySelector('.ask')?.textContent} ${e.querySelector('.meta')?.textContent}`),
        )
        return [ID1, ID3].every((id) => asks.some((t) => t.startsWith(id) && t.includes('approve Bash?') && t.includes('on host-b')))
      },
      120_000,
      1000,
    )
    // B stops carrying out actions; the prompt of S3 is answered at B itself (denied there).
    await b.stopDaemon()
    const denied = await b.cast(['deny', ID3, '--json'], tmux.env)
    expect(denied.code, denied.stderr).toBe(0)
    await until('S3 answered at B', async () => userTexts(b.h.home, b.project, S3).includes('[answer] User rejected tool use'))

    // From A's page: approve S1 in its answer view (y), then S3 (the page still shows its prompt).
    await page.click(card(ID1))
    if (!(await page.isVisible('.answer-title'))) await page.click(card(ID1))
    await page.waitForSelector('.ask-box.approval')
    // The conversation stays on B: the view shows the title and ask line only.
    await page.keyboard.press('y')
    await showing('#answer .pending-line', '^Approve: asked host-b, waiting for it to confirm')
    await page.keyboard.press('Escape')
    await page.waitForSelector('#list:not([hidden])')
    await page.click(card(ID3))
    if (!(await page.isVisible('.answer-title'))) await page.click(card(ID3))
    await page.waitForSelector('.ask-box.approval')
    await page.click('.approve')
    await showing('#answer .pending-line', 'waiting for it to confirm')
    await page.keyboard.press('Escape')
    await page.waitForSelector('#list:not([hidden])')
    // Both pending on their cards; nothing reads as done; nothing reached S1's agent.
    for (const id of [ID1, ID3]) expect(await page.textContent(`${card(id)} .pending-line`)).toMatch(/waiting for it to confirm/)
    expect(await page.$$('.outcome')).toHaveLength(0)
    expect(await statusText()).not.toMatch(/approved/)
    const queued = await cluster.sql(`SELECT session_id, status FROM cast_team.actions WHERE verb = 'approve' ORDER BY id`)
    expect(queued.map((r) => [r.session_id, r.status])).toEqual([
      [ID1, 'queued'],
      [ID3, 'queued'],
    ])
    expect(userTexts(b.h.home, b.project, S1).some((t) => t.startsWith('[answer]'))).toBe(false)

    // B's daemon comes back and carries them out: S1 approved at its prompt, S3 refused.
    await b.startDaemon(tmux.env)
    await page.waitForSelector(`${card(ID1)} .outcome.ok`, {timeout: 120_000})
    expect(await page.textContent(`${card(ID1)} .outcome`)).toBe('approved on host-b')
    expect(userTexts(b.h.home, b.project, S1)).toContain('[answer] ran make build')
    await page.waitForSelector(`${card(ID3)} .outcome.refused`, {timeout: 120_000})
    expect(await page.textContent(`${card(ID3)} .outcome`)).toMatch(/^Refused by host-b: No permission prompt is open/)
    expect(userTexts(b.h.home, b.project, S3).some((t) => t.startsWith('[answer] ran'))).toBe(false)
    // What B reported, in the team store, is what the page shows.
    const done = await cluster.sql(`SELECT session_id, status FROM cast_team.actions WHERE verb = 'approve' ORDER BY id`)
    expect(done.map((r) => [r.session_id, r.status])).toEqual([
      [ID1, 'delivered'],
      [ID3, 'refused'],
    ])
    // The page may follow only the actions it asked for.
    const other = await page.evaluate(async () => (await fetch('/api/action/999999')).status)
    expect(other).toBe(404)
    expect(json(await a.cast(['sessions', '--json'])).sessions.map((s: {id: string}) => s.id)).toEqual(expect.arrayContaining([ID1, ID3]))
  }, 300_000)
})
