/**
 * `cast daemon --web --team`: the daemon serves cast web --team's page (src/lib/web/start.ts,
 * the same server option). Two machines on a real PostgreSQL; B runs the fake Claude Code in its
 * own tmux under its daemon; A's daemon serves the page, opened in Debian's Chromium. Bo's session
 * is listed, marked with its machine, and read-only: no button on the page, 403 from the server.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {fakeInWindow, startTmux, type TmuxServer, userTexts} from '../fakes/agents.js'
import {json, killStarted} from '../helpers/cli.js'
import {type Machine, makeMachine, setupSchema, until} from '../team/helpers.js'
import {type Cluster, startCluster} from '../team/pg.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const S = '7e1f0000-0000-4000-8000-0000000d0001'
const ID = castId('claude_code', S)
const READ_ONLY_B = 'read-only: owned by bo@example.com on host-b'

describe('cast daemon --web --team: the daemon serves the team view', () => {
  let cluster: Cluster
  let a: Machine
  let b: Machine
  let tmux: TmuxServer
  let web: WebServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    cluster = await startCluster()
    await setupSchema(cluster)
    a = await makeMachine(cluster, 'host-a', 'ana@example.com')
    b = await makeMachine(cluster, 'host-b', 'bo@example.com')
    tmux = startTmux({...b.env, FAKE_DELAY_MS: '100'})
    fakeInWindow(tmux, {cwd: b.project, prompt: 'tool: rm -rf build', sessionId: S})
    await b.startDaemon(tmux.env)
    web = await startWeb(a.env, ['--web', '--team', '--web-port', '0'], ['daemon'])
    browser = await launchChromium()
    page = await inboxPage(await signIn(browser, web), web)
    await until(
      'Bo’s session on the page, waiting on approval',
      async () => {
        await page.reload()
        await page.waitForSelector('#tally')
        return /approve Bash\?/.test((await page.textContent(`.card[data-id="${ID}"] .ask`).catch(() => '')) ?? '')
      },
      120_000,
      1000,
    )
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

  it('lists it as cast sessions --team does, read-only: no verb on the page, 403 on a crafted write, nothing queued', async () => {
    expect(web.stderr()).toContain('cast daemon: watching')
    const listing = (await page.evaluate(async () =>
      (await fetch('/api/listing', {headers: {'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')}})).json(),
    )) as {
      team: boolean
      sessions: {id: string; bucket: string}[]
      read_only: Record<string, string>
    }
    expect(listing.team).toBe(true)
    expect(listing.read_only).toEqual({[ID]: READ_ONLY_B})
    const cli = json(await a.cast(['sessions', '--team', '--json']))
    expect(listing.sessions.map((s) => s.id)).toEqual(cli.sessions.map((s: {id: string}) => s.id))
    expect(await page.textContent('#me')).toBe('ana@example.com · team view')
    expect(await page.textContent(`.card[data-id="${ID}"] .readonly-line`)).toBe(READ_ONLY_B)

    await page.click(`.card[data-id="${ID}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${ID}"]`)
    await page.waitForSelector('.ask-box.approval')
    expect(await page.$$('#answer button.approve, #answer button.deny, #answer textarea')).toHaveLength(0)

    const r = await page.evaluate(async (session) => {
      const res = await fetch('/api/verb', {
        body: JSON.stringify({session, verb: 'approve'}),
        headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
        method: 'POST',
      })
      return {body: (await res.json()) as {error?: {exit_code: number; message: string}}, status: res.status}
    }, ID)
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({exit_code: 5, message: `${READ_ONLY_B}: nothing was done.`})
    expect(await cluster.sql(`SELECT verb FROM cast_team.actions WHERE session_id = $1`, [ID])).toEqual([])
    expect(userTexts(b.h.home, b.project, S).some((t) => t.startsWith('[answer]'))).toBe(false)
  })
})
