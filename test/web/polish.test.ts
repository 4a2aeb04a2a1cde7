/**
 * The page as a newcomer first sees it, over the demo store (`cast demo --keep`), in Debian's
 * Chromium: shortcuts under the platform's names, no machine named on the cards of a one-machine
 * inbox, the question of the answer view shown once with its options' descriptions, the header
 * and the tally of a 390-px phone each on one line, and the cursor left where it was when mark
 * done (or stash) files the focused card away. Screenshots go to test/web/.artifacts/.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, saveArtifact, signIn, startWeb, type WebServer} from './helpers.js'

describe('cast web polish over the demo store', () => {
  let h: TempHome
  let env: Record<string, string>
  let web: WebServer
  let browser: Browser
  let context: BrowserContext
  let demoDir: string

  beforeAll(async () => {
    h = makeHome()
    const demo = json(await runCast(['demo', '--keep', '--json'], {env: h.env, timeout: 60_000}))
    demoDir = path.dirname(demo.cast_home as string)
    env = {...h.env, CAST_HOME: demo.cast_home, CAST_USER: demo.me, HOME: demo.home}
    web = await startWeb(env)
    browser = await launchChromium()
    context = await signIn(browser, web)
  })

  afterAll(async () => {
    await browser?.close()
    await web?.stop()
    fs.rmSync(demoDir, {force: true, recursive: true})
    h.cleanup()
  })

  const sessions = async (): Promise<any> => json(await runCast(['sessions', '--json'], {env}))
  const focusedId = (p: Page) => p.getAttribute('.card.focus', 'data-id')
  const cardIds = (p: Page) => p.$$eval('.card', (els) => els.map((e) => e.getAttribute('data-id')!))

  it('names the shortcuts as the platform does: Ctrl+K on Linux, ⌘K on a Mac', async () => {
    const page = await inboxPage(context, web)
    expect(await page.textContent('#palette-button')).toBe('Search Ctrl+K')
    expect(await page.getAttribute('#palette-button', 'title')).toBe('Search and verbs (Ctrl+K)')
    expect(await page.getAttribute('#undo-button', 'title')).toBe('Undo (Ctrl+Z)')
    await page.close()

    const mac = await context.newPage()
    // What Chromium on macOS reports (navigator.userAgentData where it has one, navigator.platform elsewhere).
    await mac.addInitScript(() => {
      const proto = Object.getPrototypeOf((globalThis as any).navigator)
      Object.defineProperty(proto, 'platform', {get: () => 'MacIntel'})
      Object.defineProperty(proto, 'userAgentData', {get: () => ({platform: 'macOS'})})
    })
    await mac.goto(web.base + '/')
    await mac.waitForSelector('#tally')
    expect(await mac.textContent('#palette-button')).toBe('Search ⌘K')
    expect(await mac.getAttribute('#undo-button', 'title')).toBe('Undo (⌘Z)')
    await mac.close()
  })

  it('names no machine on the cards of a one-machine inbox', async () => {
    const listing = await sessions()
    const devices = new Set(listing.sessions.map((s: any) => s.device).filter(Boolean))
    // The demo's sessions all run here, and the JSON still says where.
    expect(devices.size).toBe(1)
    const [device] = [...devices] as string[]
    const page = await inboxPage(context, web)
    const metas = await page.$$eval('.card .meta', (els) => els.map((e) => e.textContent ?? ''))
    expect(metas.length).toBeGreaterThan(5)
    for (const m of metas) expect(m).not.toContain(`on ${device}`)
    await page.close()
  })

  it('shows the question once in the answer view, each option with its description', async () => {
    const listing = await sessions()
    const q = listing.sessions.find((s: any) => s.title === 'Plan the orders table migration')
    expect(q?.ask?.kind).toBe('question')
    const page = await inboxPage(context, web)
    await page.click(`.card[data-id="${q.id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${q.id}"]`)
    await page.waitForSelector('.choices .choice')
    const text = (await page.textContent('#answer')) ?? ''
    expect(text.split(q.ask.text).length - 1, text).toBe(1)
    const options = await page.$$eval('.choices .choice', (els) => els.map((e) => e.textContent))
    expect(options).toEqual([
      '1. One transaction — Simplest; locks the orders table for the whole backfill',
      '2. Batches — 10k rows per transaction; the table stays writable, a failed batch resumes',
    ])
    await page.screenshot({path: saveArtifact('polish-answer.png')})
    await page.close()
  })

  it('fits the header in one row and the tally in one line on a 390-px phone (screenshot kept)', async () => {
    const page = await inboxPage(context, web, {height: 844, width: 390})
    await page.screenshot({path: saveArtifact('polish-phone-390x844.png')})
    const box = (sel: string) => page.$eval(sel, (e) => e.getBoundingClientRect().toJSON() as {top: number; height: number; right: number})
    const items = await page.$$eval('header.top > *', (els) =>
      els
        .filter((e) => (e as any).offsetParent !== null)
        .map((e) => e.getBoundingClientRect().toJSON() as {top: number; height: number; right: number}),
    )
    // One row: every item of the header is centred on one line, and none spills past the screen.
    const header = await box('header.top')
    const middle = header.top + header.height / 2
    for (const r of items) expect(Math.abs(r.top + r.height / 2 - middle)).toBeLessThan(4)
    for (const r of items) expect(r.right).toBeLessThanOrEqual(390)
    expect(header.height).toBeLessThan(70)
    // The tally: one line of the work-state figures, every one of them whole.
    const tally = await page.$eval('#tally', (e) => ({
      height: e.getBoundingClientRect().height,
      line:
        parseFloat((globalThis as any).getComputedStyle(e).lineHeight) ||
        parseFloat((globalThis as any).getComputedStyle(e).fontSize) * 1.6,
      scroll: e.scrollWidth,
      width: e.clientWidth,
    }))
    expect(tally.height).toBeLessThan(tally.line * 1.5)
    expect(tally.scroll).toBeLessThanOrEqual(tally.width)
    // Its figures read as the CLI's; the parenthesis stays in the text (and the title), out of sight.
    const listing = await sessions()
    expect(await page.isVisible('#tally .tally-more')).toBe(false)
    expect(await page.textContent('#tally')).toBe((await runCast(['sessions'], {env})).stdout.split('\n')[1])
    expect(listing.counts.needs_input).toBeGreaterThan(0)
    // The first card starts within the first fifth of the screen.
    const first = await box('.card')
    expect(first.top).toBeLessThan(844 / 5)
    await page.close()
  })

  it('leaves the cursor where it was when mark done or stash files the focused card away', async () => {
    const page = await inboxPage(context, web)
    const settle = async (label: string) =>
      page.waitForFunction(
        (l) =>
          (globalThis as any).document.querySelector('#status')?.textContent?.startsWith(l) &&
          !(globalThis as any).document.querySelector('.card.pending'),
        label,
      )
    // Each verb on the second card of Needs Input: the cursor stays second in the list.
    for (const step of [
      {key: 'e', label: 'Mark done', bucket: 'done'},
      {key: 'x', label: 'Stash', bucket: 'stashed'},
      {key: 'e', label: 'Mark done', bucket: 'done'},
    ]) {
      const ids = await page.$$eval('section[data-bucket="needs_input"] .card', (els) => els.map((e) => e.getAttribute('data-id')!))
      expect(ids.length, 'cards left in Needs Input').toBeGreaterThan(2)
      const target = ids[1]!
      for (let i = 0; i < 80 && (await focusedId(page)) !== target; i++) {
        const all = await cardIds(page)
        await page.keyboard.press(all.indexOf(target) > all.indexOf((await focusedId(page))!) ? 'j' : 'k')
      }

      expect(await focusedId(page)).toBe(target)
      const at = (await cardIds(page)).indexOf(target)
      await page.keyboard.press(step.key)
      await settle(step.label)
      // The card went to its section; the cursor is on the card that took its place.
      await page.waitForFunction(
        ({id, bucket}) =>
          (globalThis as any).document.querySelector(`.card[data-id="${id}"]`)?.closest('section')?.dataset.bucket === bucket ||
          (bucket === 'stashed' && !(globalThis as any).document.querySelector(`.card[data-id="${id}"]`)),
        {bucket: step.bucket, id: target},
      )
      // And stays there once the stream's listing brings the order.
      await page.waitForFunction(
        ({id, bucket}) =>
          (globalThis as any).document.querySelector(`section[data-bucket="${bucket}"] .count`)?.textContent !== '(0)' &&
          !(globalThis as any).document.querySelector(`section[data-bucket="needs_input"] .card[data-id="${id}"]`),
        {bucket: step.bucket, id: target},
      )
      const now = await focusedId(page)
      expect(now, step.label).not.toBe(target)
      expect((await cardIds(page)).indexOf(now!), step.label).toBe(at)
      expect(ids.slice(2)).toContain(now)
      expect((await sessions()).sessions.find((s: any) => s.id === target).bucket).toBe(step.bucket)
    }

    await page.close()
  })
})
