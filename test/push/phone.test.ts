/**
 * The phone, end to end with real parts: a paired Chromium (Debian's) with the page's service
 * worker registered over loopback HTTP (a secure context), a subscription stored with the device,
 * `cast notify --backend push` paging when the fake Claude Code in a real tmux pane asks for a
 * permission, the push service on loopback decrypting what was sent, the page delivered to the
 * service worker through the DevTools protocol (ServiceWorker.deliverPushMessage), its Approve
 * action handled by the worker, and the agent's own dialog answered in its pane; then the
 * receipt replaces the page. A spent action, and one whose prompt closed, say so and type nothing.
 */
import {type ChildProcess, spawn} from 'node:child_process'

import type {Browser, BrowserContext, Page, Worker} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {launchChromium, startWeb, type WebServer} from '../web/helpers.js'
import {type PushService, startPushService} from './endpoint.js'

const SID = '5e1f0000-0000-4000-8000-0000000a5501'

interface Page1 {
  tag: string
  title: string
  body: string
  actions: {action: string; title: string; token?: string}[]
}

describe('a push approves from the notification and the receipt replaces it', () => {
  let h: TempHome
  let tmux: TmuxServer
  let env: Record<string, string>
  let proj: string
  let web: WebServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let svc: PushService
  let notifier: ChildProcess
  let notifierOut = ''

  beforeAll(async () => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    svc = await startPushService()
    tmux = startTmux({...h.env, FAKE_DELAY_MS: '100'})
    env = {...h.env, ...tmux.env, CAST_PUSH_LOOPBACK_HTTP: '1'}
    web = await startWeb(env)
    browser = await launchChromium()
  }, 120_000)

  afterAll(async () => {
    notifier?.kill('SIGTERM')
    await browser?.close()
    await web?.stop()
    await svc?.close()
    tmux?.kill()
    h?.cleanup()
  })

  const alive = (): true => {
    if (notifier.exitCode !== null) throw new Error(`cast notify exited ${notifier.exitCode}: ${notifierOut}`)
    return true
  }
  const screen = (pane: string): string => tmux.tmux(['capture-pane', '-p', '-t', pane])
  const shown = (sw: Worker) =>
    sw.evaluate(async () => {
      const reg = (globalThis as any).registration
      const ns = await reg.getNotifications()
      return ns.map((n: any) => ({actions: n.actions.map((a: any) => a.action), tag: n.tag, title: n.title}))
    }) as Promise<{actions: string[]; tag: string; title: string}[]>
  const click = (sw: Worker, tag: string, action: string) =>
    sw.evaluate(
      async ([t, a]) => {
        const g = globalThis as any
        g.__castLast = undefined
        const [n] = await g.registration.getNotifications({tag: t})
        g.dispatchEvent(new g.NotificationEvent('notificationclick', {action: a, notification: n}))
      },
      [tag, action] as const,
    )
  const receipt = (sw: Worker) =>
    waitFor(() => sw.evaluate(() => (globalThis as any).__castLast as {title: string; body: string} | undefined), 60_000)

  async function deliver(data: string): Promise<Worker> {
    const cdp = await context.newCDPSession(page)
    const regs: {registrationId: string; scopeURL: string}[] = []
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e: {registrations: {registrationId: string; scopeURL: string}[]}) =>
      regs.push(...e.registrations),
    )
    await cdp.send('ServiceWorker.enable')
    const reg = await waitFor(() => regs.find((r) => r.scopeURL === `${web.base}/`), 30_000)
    await cdp.send('ServiceWorker.deliverPushMessage', {data, origin: web.base, registrationId: reg.registrationId})
    return context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'))
  }

  it('pages the paired phone, approves in the agent’s pane, and shows the receipt in place of the page', async () => {
    // Pair this browser as a device, as a phone would.
    const code = (json(await runCast(['web', 'pair', '--json'], {env})) as {code: string}).code
    context = await browser.newContext()
    await context.grantPermissions(['notifications'], {origin: web.base})
    page = await context.newPage()
    await page.goto(`${web.base}/pair#${code}`)
    await page.fill('#name', 'phone')
    await page.click('button[type=submit]')
    await page.waitForSelector('#tally')
    await page.waitForSelector('#notify-button')
    expect(await page.evaluate(async () => Boolean(await (globalThis as any).navigator.serviceWorker.ready))).toBe(true)

    // The paired device subscribes (the test's push service stands in for the browser's).
    const sub = svc.subscription('/phone')
    const status = await page.evaluate(async (s) => {
      const r = await fetch('/api/push/subscribe', {body: JSON.stringify(s), headers: {'content-type': 'application/json'}, method: 'POST'})
      return r.status
    }, sub)
    expect(status).toBe(200)

    notifier = spawn(process.execPath, [BIN, 'notify', '--backend', 'push'], {env, stdio: ['ignore', 'pipe', 'pipe']})
    notifier.stdout!.on('data', (c) => (notifierOut += String(c)))
    notifier.stderr!.on('data', (c) => (notifierOut += String(c)))
    await waitFor(
      () => /paging|notify/i.test(notifierOut) || null,
      30_000,
      () => notifierOut,
    ).catch(() => null)

    const pane = fakeInWindow(tmux, {cwd: proj, prompt: 'tool: make build', sessionId: SID})
    const got = await waitFor(
      () => alive() && svc.received.find((r) => r.path === '/phone'),
      90_000,
      () => `notifier: ${notifierOut}`,
    )
    expect(got.jwt.valid).toBe(true)
    const sent = JSON.parse(got.plaintext) as Page1
    expect(sent.title).toMatch(/waiting for approval/)
    expect(sent.actions.map((a) => a.action)).toEqual(['approve', 'deny'])
    await waitFor(
      () => /Do you want to proceed\?/.test(screen(pane)) || null,
      30_000,
      () => screen(pane),
    )

    const sw = await deliver(got.plaintext)
    const first = await waitFor(async () => (await shown(sw)).find((n) => n.tag === sent.tag), 30_000)
    expect(first.actions).toEqual(['approve', 'deny'])
    expect(first.title).toBe(sent.title)

    await click(sw, sent.tag, 'approve')
    const r = await receipt(sw)
    expect(r.title).toMatch(/^Approved on .+ · the agent resumed$/)
    await waitFor(
      () => userTexts(h.home, proj, SID).includes('[answer] ran make build') || null,
      60_000,
      () => screen(pane),
    )
    // The receipt replaced the page (same tag, no actions left).
    const after = await waitFor(async () => (await shown(sw)).find((n) => n.tag === sent.tag && n.title === r.title), 30_000)
    expect(after.actions).toEqual([])

    // The same action again, and its sibling Deny: spent with it; nothing typed.
    const again = await page.evaluate(
      async (tokens) => {
        const out: string[] = []
        for (const token of tokens) {
          const res = await fetch('/api/push/act', {
            body: JSON.stringify({token}),
            headers: {'content-type': 'application/json'},
            method: 'POST',
          })
          out.push(((await res.json()) as {title: string}).title)
        }

        return out
      },
      sent.actions.map((a) => a.token!),
    )
    expect(again).toEqual(['Not sent: this action was used already or is unknown', 'Not sent: this action was used already or is unknown'])
    expect(userTexts(h.home, proj, SID).filter((t) => t.startsWith('[answer]'))).toHaveLength(1)
  }, 240_000)

  it('an Approve whose prompt closed (answered at the desk) says so and types nothing', async () => {
    const before = svc.received.filter((r) => r.path === '/phone').length
    tmux.tmux(['send-keys', '-t', `base:1`, 'tool: make test', 'Enter'])
    const got = await waitFor(
      () => alive() && svc.received.filter((r) => r.path === '/phone')[before],
      90_000,
      () => `notifier: ${notifierOut}`,
    )
    const sent = JSON.parse(got.plaintext) as Page1
    expect(sent.actions.map((a) => a.action)).toEqual(['approve', 'deny'])
    // Answered at the desk first.
    const desk = await runCast(['deny', SID.slice(0, 8), '--json'], {env})
    expect(desk.code, desk.stderr).toBe(0)
    await waitFor(async () => {
      const s = (json(await runCast(['sessions', '--json'], {env})).sessions as any[]).find((x) => x.native_id === SID)
      return s && s.reason !== 'approval' ? s : null
    }, 60_000)
    const sw = await deliver(got.plaintext)
    // The new page replaces the last receipt (the same session, the same tag).
    await waitFor(async () => (await shown(sw)).find((n) => n.tag === sent.tag && n.actions.length === 2), 30_000)
    await click(sw, sent.tag, 'approve')
    const r = await receipt(sw)
    expect(r.title).toBe('Not sent: the prompt had closed')
    expect(userTexts(h.home, proj, SID).some((t) => t.includes('ran make test'))).toBe(false)
  }, 240_000)

  it('a question’s option, chosen from the notification, is picked in the agent’s own menu', async () => {
    const QID = '5e1f0000-0000-4000-8000-0000000a5503'
    const before = svc.received.filter((r) => r.path === '/phone').length
    fakeInWindow(tmux, {cwd: proj, env: {FAKE_QUESTION_MENU: '1'}, prompt: 'ask which colour', sessionId: QID})
    const got = await waitFor(
      () =>
        alive() &&
        svc.received
          .filter((r) => r.path === '/phone')
          .slice(before)
          .find((r) => /"option1"/.test(r.plaintext)),
      90_000,
      () => `notifier: ${notifierOut}`,
    )
    const sent = JSON.parse(got.plaintext) as Page1
    expect(sent.actions.map((a) => [a.action, a.title])).toEqual([
      ['option1', 'Red'],
      ['option2', 'Blue'],
      ['open', 'Open'],
    ])
    const sw = await deliver(got.plaintext)
    // Chromium shows two actions (Notification.maxActions): the two options; a tap on the body opens the page.
    const q = await waitFor(async () => (await shown(sw)).find((n) => n.tag === sent.tag && n.title === sent.title), 30_000)
    expect(q.actions).toEqual(['option1', 'option2'])
    await click(sw, sent.tag, 'option2')
    const r = await receipt(sw)
    expect(r.title).toMatch(/^Chose "Blue" on .+ · the agent resumed$/)
    await waitFor(() => userTexts(h.home, proj, QID).find((t) => t.includes('="Blue"')) ?? null, 60_000)
    expect(userTexts(h.home, proj, QID).some((t) => t.includes('="Red"'))).toBe(false)
  }, 240_000)

  it('a keystroke in the page counts as being at the desk', async () => {
    const before = json(await runCast(['presence', '--json'], {env})).paging as {active: boolean}
    expect(before.active).toBe(false)
    await page.bringToFront()
    await page.keyboard.press('Shift')
    const p = await waitFor(async () => {
      const j = json(await runCast(['presence', '--json'], {env})).paging as {active: boolean; why: string | null}
      return j.active ? j : null
    }, 30_000)
    expect(p.why).toBe('a keystroke in the web page')
  }, 120_000)
})
