/**
 * `cast web --team`: every session of the team on one page, as `cast sessions --team` lists them,
 * a teammate's session I neither own nor run read-only. Two machines (each its own HOME,
 * CAST_HOME and identity) on a real PostgreSQL; B runs the fake Claude Code in its own tmux and
 * its daemon carries out the team's signed actions; A serves `cast web --team`, opened in
 * Debian's Chromium. The attacks are a teammate with raw SQL and his own credentials (hostile
 * titles, forged device and runner, a 1 MB title) and the database's superuser (a row claiming I
 * run it, an owner set rewritten to name me), and the page itself (a crafted fetch with the cookie,
 * its own listing edited to say I own the session).
 */
import fs from 'node:fs'
import path from 'node:path'

import pg from 'pg'
import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {fakeInWindow, startTmux, type TmuxServer, userTexts} from '../fakes/agents.js'
import {json, killStarted} from '../helpers/cli.js'
import {type Machine, makeMachine, setupSchema, until} from '../team/helpers.js'
import {type Cluster, startCluster} from '../team/pg.js'
import {inboxPage, launchChromium, signIn, startWeb, type WebServer} from './helpers.js'

const S1 = '7e1f0000-0000-4000-8000-0000000e0001'
const S2 = '7e1f0000-0000-4000-8000-0000000e0002'
const S4 = '7e1f0000-0000-4000-8000-0000000e0004'
const ID1 = castId('claude_code', S1)
const ID2 = castId('claude_code', S2)
const ID4 = castId('claude_code', S4)
const X1 = castId('claude_code', '7e1f0000-0000-4000-8000-0000000ee001')
const X2 = castId('claude_code', '7e1f0000-0000-4000-8000-0000000ee002')
const X3 = castId('claude_code', '7e1f0000-0000-4000-8000-0000000ee003')
const FORGED = castId('claude_code', '7e1f0000-0000-4000-8000-0000000ee004')
const HOSTILE = '<script>document.title="pwned"</script><img src=x onerror="window.__pwned=1">\u202Egnp.exe'
const READ_ONLY_B = 'read-only: owned by bo@example.com on host-b'

describe('cast web --team: the whole team, teammates’ sessions read-only', () => {
  let cluster: Cluster
  let a: Machine
  let b: Machine
  let tmux: TmuxServer
  let web: WebServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let bob: pg.Client

  beforeAll(async () => {
    cluster = await startCluster()
    await setupSchema(cluster)
    a = await makeMachine(cluster, 'host-a', 'ana@example.com')
    b = await makeMachine(cluster, 'host-b', 'bo@example.com')
    tmux = startTmux({...b.env, FAKE_DELAY_MS: '100'})
    fakeInWindow(tmux, {cwd: b.project, prompt: 'tool: make build', sessionId: S1})
    fakeInWindow(tmux, {cwd: b.project, prompt: 'tool: rm -rf build', sessionId: S2})
    await b.startDaemon(tmux.env)
    // Ana owns S1 on B (she may act on it); S2 stays Bo's. S4 is Ana's own, on A.
    await until(`${ID1} owned on B`, async () => (await b.cast(['own', ID1, 'ana@example.com'], tmux.env)).code === 0, 90_000)
    a.addSession(S4, {question: 'Which database?'})
    // Bo with raw SQL and his own credentials (the URL his join wrote), as psql would.
    const url = JSON.parse(fs.readFileSync(path.join(b.h.castHome, 'config.json'), 'utf8')).team.url as string
    bob = new pg.Client({connectionString: url})
    bob.on('error', () => {})
    await bob.connect()
    web = await startWeb(a.env, ['--team'])
    browser = await launchChromium()
    context = await signIn(browser, web)
    page = await inboxPage(context, web)
    await until(
      'S1 and S2 on the page, waiting on approval, and S4',
      async () => {
        await page.reload()
        await page.waitForSelector('#tally')
        const asks = await page.$$eval('section[data-bucket="questions"] .card', (els) =>
          els.map((e) => `${e.getAttribute('data-id')} ${e.querySelector('.ask')?.textContent}`),
        )
        return (
          [ID1, ID2].every((id) => asks.some((t) => t.startsWith(id) && t.includes('approve Bash?'))) && asks.some((t) => t.startsWith(ID4))
        )
      },
      120_000,
      1000,
    )
  }, 300_000)

  afterAll(async () => {
    await bob?.end().catch(() => {})
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
  const actions = async (id: string) => cluster.sql(`SELECT verb, status FROM cast_team.actions WHERE session_id = $1`, [id])
  /** A write from the page's own origin, with its cookie: what a crafted fetch (or an edited page) sends. */
  const write = (p: string, body: unknown) =>
    page.evaluate(
      async ([route, b]) => {
        const r = await fetch(route, {
          body: JSON.stringify(b),
          headers: {'content-type': 'application/json', 'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')},
          method: 'POST',
        })
        return {body: (await r.json()) as {error?: {exit_code: number; message: string}}, status: r.status}
      },
      [p, body] as const,
    )
  const showing = (selector: string, pattern: string) =>
    page.waitForFunction(
      ([sel, re]) => new RegExp(re).test((globalThis as any).document.querySelector(sel)?.textContent ?? ''),
      [selector, pattern] as const,
      {timeout: 60_000},
    )

  it('lists every machine’s sessions as cast sessions --team does, marked with machine and runner; Bo’s is read-only', async () => {
    const listing = (await page.evaluate(async () =>
      (await fetch('/api/listing', {headers: {'x-cast-key': (globalThis as any).localStorage.getItem('cast-key')}})).json(),
    )) as {
      team: boolean
      counts: Record<string, number>
      sessions: {id: string; bucket: string}[]
      read_only: Record<string, string>
    }
    const cli = json(await a.cast(['sessions', '--team', '--json']))
    expect(listing.team).toBe(true)
    expect(listing.counts).toEqual(cli.counts)
    expect(listing.sessions.map((s) => [s.id, s.bucket])).toEqual(cli.sessions.map((s: {id: string; bucket: string}) => [s.id, s.bucket]))
    // Bo's session is the only read-only one: S1 is Ana's on B, S4 runs here.
    expect(listing.read_only).toEqual({[ID2]: READ_ONLY_B})
    const human = (await a.cast(['sessions', '--team', '--no-pager'])).stdout
    expect(human).toContain(READ_ONLY_B)
    expect(human.match(/read-only:/g)).toHaveLength(1)

    expect(await page.textContent('#me')).toBe('ana@example.com · team view')
    expect(await page.textContent(`${card(ID2)} .meta`)).toMatch(/run by bo@example\.com {2}· {2}on host-b/)
    expect(await page.textContent(`${card(ID2)} .readonly-line`)).toBe(READ_ONLY_B)
    expect(await page.getAttribute(card(ID2), 'draggable')).toBe('false')
    for (const id of [ID1, ID4]) {
      expect(await page.$(`${card(id)}.read-only`)).toBeNull()
      expect(await page.getAttribute(card(id), 'draggable')).toBe('true')
    }
  })

  /** Bo's card focused in the list (a click on the focused card opens it: back to the list then). */
  const focusList = async (id: string) => {
    await page.click(card(id))
    if (await page.isVisible('.answer-title')) await page.keyboard.press('Escape')
    await page.waitForSelector(`${card(id)}.focus`)
  }

  it('offers no verb on Bo’s session: keys say read-only, no menu entry, no button, no composer, no drag', async () => {
    await focusList(ID2)
    // A verb's key on the focused card: nothing runs, the page says why.
    for (const key of ['a', 'x', 'p', 'e']) {
      await page.evaluate(() => {
        const s = (globalThis as any).document.querySelector('#status')
        s.textContent = ''
      })
      await page.keyboard.press(key)
      await showing('#status', `^${READ_ONLY_B}$`)
    }

    expect(await page.$(`${card(ID2)} .pending-line`)).toBeNull()
    // The right-click menu: why, and nothing to pick.
    await page.click(card(ID2), {button: 'right'})
    await page.waitForSelector('#menu:not([hidden])')
    expect(await page.$$('#menu button')).toHaveLength(0)
    expect(await page.textContent('#menu .menu-note')).toBe(READ_ONLY_B)
    await page.keyboard.press('Escape')
    await page.click(card(ID1), {button: 'right'})
    expect((await page.$$('#menu button')).length).toBeGreaterThan(3)
    await page.keyboard.press('Escape')
    // The palette offers no verb for it either.
    await focusList(ID2)
    await page.keyboard.press('Control+k')
    await page.waitForSelector('#palette:not([hidden])')
    const offered = await page.$$eval('#palette li, #palette button', (els) => els.map((e) => e.textContent ?? ''))
    expect(offered.some((t) => /Approve|Stash|Pin|Kill/.test(t))).toBe(false)
    await page.keyboard.press('Escape')

    // Dragged onto Done: no drop (the card is not draggable, and the page would refuse it).
    await page.dragAndDrop(card(ID2), 'section[data-bucket="done"]').catch(() => undefined)

    // The answer view: title and ask line, why it is read-only, no approve/deny, no composer; y says why.
    await page.click(card(ID2))
    if (!(await page.isVisible('.answer-title'))) await page.click(card(ID2))
    await page.waitForSelector('.ask-box.approval')
    expect(await page.textContent('#answer .readonly-line')).toBe(READ_ONLY_B)
    expect(await page.$$('#answer button.approve, #answer button.deny, #answer textarea')).toHaveLength(0)
    expect(await page.textContent('#answer .remote, #answer .tool-input')).toBeTruthy()
    await page.keyboard.press('y')
    await showing('#status', `^${READ_ONLY_B}$`)
    await page.keyboard.press('Escape')
    await page.waitForSelector('#list:not([hidden])')

    expect(await actions(ID2)).toEqual([])
    expect(userTexts(b.h.home, b.project, S2).some((t) => t.startsWith('[answer]'))).toBe(false)
  })

  it('refuses every write to it on the server: 403 with the JSON error envelope, a crafted fetch and an edited page included; nothing queued', async () => {
    const forged = {owners: ['ana@example.com'], read_only: false, runner: 'ana@example.com'}
    const tries: [string, Record<string, unknown>][] = [
      ['/api/verb', {verb: 'approve', session: ID2, ...forged}],
      ['/api/verb', {verb: 'deny', session: ID2}],
      ['/api/verb', {verb: 'reply', session: ID2, value: 'rm -rf /'}],
      ['/api/verb', {verb: 'kill', session: ID2, confirmed: true}],
      ['/api/verb', {verb: 'stash', session: ID2}],
      ['/api/verb', {verb: 'pin', session: ID2}],
      ['/api/choose', {choice: 1, session: ID2}],
      ['/api/choose', {answers: [[1], [1, 2]], session: ID2}],
      ['/api/decide', {card: 'c1', choice: 1, session: ID2}],
    ]
    for (const [route, body] of tries) {
      const r = await write(route, body)
      expect([route, body['verb'], r.status]).toEqual([route, body['verb'], 403])
      expect(r.body.error).toMatchObject({code: 'refused', exit_code: 5, message: `${READ_ONLY_B}: nothing was done.`})
    }

    // The page's own listing edited to say Ana owns it (devtools, an extension): the server still refuses.
    // (A string: the test runner would rewrite an import() written as code.)
    await page.evaluate(`(async () => {
      const m = await import('/main.js')
      // The page fetches its listing as its first call (the HTML carries none): wait for it.
      for (let i = 0; i < 300 && !m.state.listing; i++) await new Promise((r) => setTimeout(r, 100))
      m.state.listing.read_only = {}
      const s = m.state.listing.sessions.find((x) => x.id === ${JSON.stringify(ID2)})
      s.owners = ['ana@example.com']
      await m.act('approve', s)
    })()`)
    await showing('#status', `^Approve refused: ${READ_ONLY_B}: nothing was done\\.$`)

    // The superuser writes a row saying Ana runs it: the row fails the reader's checks (its runner is
    // not its machine's member), is not listed, and a write naming it finds nothing to act on.
    await cluster.sql(
      `INSERT INTO cast_team.sessions (id, device, runner, owners, cwd, state, bucket, summary, epoch, local_seq)
       SELECT $2, device, 'ana@example.com', ARRAY['ana@example.com'], cwd, state, bucket,
              summary || jsonb_build_object('id', $2::text, 'runner', 'ana@example.com'), epoch, local_seq
         FROM cast_team.sessions WHERE id = $1`,
      [ID2, FORGED],
    )
    const r = await write('/api/verb', {verb: 'approve', session: FORGED})
    expect(r.status).toBe(404)
    expect(r.body.error?.exit_code).toBe(3)
    await page.reload()
    await page.waitForSelector(card(ID2))
    expect(await page.$(card(FORGED))).toBeNull()

    for (const id of [ID2, FORGED]) expect(await actions(id)).toEqual([])
    expect(userTexts(b.h.home, b.project, S2).some((t) => t.startsWith('[answer]'))).toBe(false)
  })

  it('shows what Bo publishes with raw SQL as text, on his machine, read-only: hostile titles, a forged device and runner, a 1 MB title', async () => {
    const base = (await cluster.sql(`SELECT summary FROM cast_team.sessions WHERE id = $1`, [ID2]))[0]!.summary as Record<string, any>
    const row = (id: string, title: string) => ({
      id,
      local_seq: 1,
      summary: {
        ...base,
        device: 'host-a',
        facts: {...base.facts, title},
        id,
        native_id: id,
        records: {...base.records, owners: []},
        runner: 'ana@example.com',
      },
    })
    await bob.query(`SELECT cast_team.register_machine('bo-raw', NULL, NULL)`)
    const published = await bob.query<{r: {sessions: number; refused: {id: string; why: string}[]}}>(
      `SELECT cast_team.publish('bo-raw', 'raw-epoch', $1::jsonb, '[]'::jsonb, 0, NULL) AS r`,
      // ID4 is Ana's own session on A, not published (A runs no daemon): Bo squats its id.
      [JSON.stringify([row(X1, HOSTILE), row(X2, 'x'.repeat(1 << 20)), row(X3, 'long '.repeat(400)), row(ID4, 'squatted')])],
    )
    expect(published.rows[0]!.r.refused).toEqual([{id: X2, kind: 'session', why: 'the summary is over 64 KiB'}])
    // The superuser puts the 1 MB title in anyway: the reader skips that row, the rest stand.
    await cluster.sql(
      `INSERT INTO cast_team.sessions (id, device, runner, owners, cwd, state, bucket, summary, epoch, local_seq)
       SELECT $2, device, runner, owners, cwd, state, bucket,
              jsonb_set(summary || jsonb_build_object('id', $2::text), '{facts,title}', to_jsonb(repeat('x', 1048576))), epoch, local_seq
         FROM cast_team.sessions WHERE id = $1`,
      [X1, X2],
    )

    await page.reload()
    await page.waitForSelector(card(X1))
    expect(await page.$(card(X2))).toBeNull()
    const title = await page.textContent(`${card(X1)} .title`)
    expect(title).toBe('<script>document.title="pwned"</script><img src=x onerror="window.__pwned=1"><U+202E>gnp.exe')
    expect(await page.evaluate(() => (globalThis as any).__pwned)).toBeUndefined()
    expect(await page.$$('#list img, #list script')).toHaveLength(0)
    expect(await page.title()).not.toMatch(/pwned/)
    // The server wrote Bo's device and identity over the ones the summary claimed.
    expect(await page.textContent(`${card(X1)} .meta`)).toMatch(/run by bo@example\.com {2}· {2}on bo-raw$/)
    expect(await page.textContent(`${card(X1)} .readonly-line`)).toBe('read-only: owned by bo@example.com on bo-raw')
    expect((await page.textContent(`${card(X3)} .title`))!.length).toBeLessThanOrEqual(301)
    const r = await write('/api/verb', {verb: 'reply', session: X1, value: 'hi'})
    expect([r.status, r.body.error?.message]).toEqual([403, 'read-only: owned by bo@example.com on bo-raw: nothing was done.'])
    expect(await actions(X1)).toEqual([])
    // The squatted id shows once, as A's own session: this machine's store is the truth for it.
    expect(await page.$$(card(ID4))).toHaveLength(1)
    expect(await page.textContent(`${card(ID4)} .title`)).not.toBe('squatted')
    expect(await page.$(`${card(ID4)}.read-only`)).toBeNull()
    const cli = json(await a.cast(['sessions', '--team', '--json']))
    expect(cli.sessions.filter((s: {id: string}) => s.id === ID4)).toEqual([
      expect.objectContaining({device: 'host-a', title: expect.not.stringMatching(/squatted/)}),
    ])
  })

  it('still acts on a teammate’s session Ana owns: pending until B confirms, then approved', async () => {
    await page.click(card(ID1))
    if (!(await page.isVisible('.answer-title'))) await page.click(card(ID1))
    await page.waitForSelector('.ask-box.approval')
    expect(await page.$('#answer .readonly-line')).toBeNull()
    await page.keyboard.press('y')
    await showing('#answer .pending-line', '^Approve: asked host-b, waiting for it to confirm')
    await page.keyboard.press('Escape')
    await page.waitForSelector('#list:not([hidden])')
    await page.waitForSelector(`${card(ID1)} .outcome.ok`, {timeout: 120_000})
    expect(await page.textContent(`${card(ID1)} .outcome`)).toBe('approved on host-b')
    await until('S1 approved at B', async () => userTexts(b.h.home, b.project, S1).includes('[answer] ran make build'))
    expect(await actions(ID1)).toEqual([{status: 'delivered', verb: 'approve'}])
    expect(await actions(ID2)).toEqual([])
  })

  it('an owner set the superuser rewrites to name Ana lets the page ask, and B refuses: its own store says who owns it', async () => {
    await cluster.sql(
      `UPDATE cast_team.sessions SET owners = ARRAY['ana@example.com'],
              summary = jsonb_set(summary, '{records,owners}', '["ana@example.com"]') WHERE id = $1`,
      [ID2],
    )
    const r = await write('/api/verb', {verb: 'approve', session: ID2})
    expect(r.status).toBe(200)
    const id = (r.body as {action_id?: number}).action_id
    await until(
      'B refuses it',
      async () => (await cluster.sql(`SELECT status, result FROM cast_team.actions WHERE id = $1`, [id]))[0]?.status === 'refused',
      120_000,
    )
    const result = (await cluster.sql(`SELECT result FROM cast_team.actions WHERE id = $1`, [id]))[0]!.result as {error: string}
    expect(result.error).toMatch(/ana@example\.com neither owns nor runs/)
    expect(userTexts(b.h.home, b.project, S2).some((t) => t.startsWith('[answer]'))).toBe(false)
  })

  it('a teammate’s change reaches the page without a reload (LISTEN on the team store)', async () => {
    await page.waitForSelector(`section[data-bucket="questions"] ${card(ID2)}`)
    // Bo answers his prompt at B: B publishes the transition, and A's page redraws from it.
    const denied = await b.cast(['deny', ID2, '--json'], tmux.env)
    expect(denied.code, denied.stderr).toBe(0)
    await page.waitForFunction(
      (sel) => {
        const el = (globalThis as any).document.querySelector(sel)
        return el !== null && el.closest('section')?.getAttribute('data-bucket') !== 'questions'
      },
      card(ID2),
      {timeout: 60_000},
    )
    expect(await page.textContent(`${card(ID2)} .readonly-line`)).toBe(READ_ONLY_B)
  })
})
