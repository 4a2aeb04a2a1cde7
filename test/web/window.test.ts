/**
 * Windowing in Debian's Chromium: with 600 sessions in one section the page draws only the
 * cards near the viewport (the section still counts all 600), the keyboard moves over every
 * session (G to the last, k / j, g to the first: each focused card is drawn and in view), and a
 * scroll to the bottom draws the last cards.
 */
import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'
import {inboxPage, launchChromium, pageSections, signIn, startWeb, type WebServer} from './helpers.js'

const N = 600

describe('cast web with many sessions', () => {
  let h: TempHome
  let web: WebServer
  let browser: Browser
  let page: Page
  let order: string[]
  let counts: Record<string, number>

  beforeAll(async () => {
    h = makeHome()
    const cwd = `${h.dir}/proj`
    for (let n = 0; n < N; n++) {
      const sessionId = `5e1f0000-0000-4000-8000-${String(n).padStart(12, '0')}`
      writeFile(
        claudeTranscriptPath(h.home, cwd, sessionId),
        claudeLines({at: new Date(Date.now() - 60_000 - n * 1000), cwd, prompt: `Task ${n}`, sessionId, settled: true}),
      )
    }

    const listing = json(await runCast(['sessions', '--json'], {env: h.env, timeout: 120_000}))
    order = (listing.sessions as {id: string; bucket: string}[]).filter((s) => s.bucket === 'needs_input').map((s) => s.id)
    counts = listing.counts as Record<string, number>
    web = await startWeb(h.env)
    browser = await launchChromium()
    page = await inboxPage(await signIn(browser, web), web)
  }, 180_000)

  afterAll(async () => {
    await page?.close()
    await browser?.close()
    await web?.stop()
    h?.cleanup()
  })

  const focused = () => page.getAttribute('.card.focus', 'data-id')
  /** The focused card is drawn and inside the viewport. */
  const inView = () =>
    page.evaluate(() => {
      const r = (globalThis as any).document.querySelector('.card.focus')?.getBoundingClientRect()
      return r !== undefined && r.top >= 0 && r.bottom <= (globalThis as any).innerHeight
    })

  it('draws the cards in view only, and the keyboard reaches every session', async () => {
    expect(order.length).toBe(N)
    expect((await pageSections(page))['needs_input']).toBe(N)
    const drawn = await page.$$eval('section[data-bucket="needs_input"] .card', (els) => els.map((e) => e.getAttribute('data-id')))
    expect(drawn.length).toBeGreaterThan(5)
    expect(drawn.length).toBeLessThan(100)
    expect(drawn).toEqual(order.slice(0, drawn.length))

    // The first card has the focus; j moves it down.
    expect(await focused()).toBe(order[0])
    await page.keyboard.press('j')
    expect(await focused()).toBe(order[1])
    await page.keyboard.press('G')
    await page
      .waitForFunction((id) => (globalThis as any).document.querySelector('.card.focus')?.getAttribute('data-id') === id, order[N - 1], {
        timeout: 10_000,
      })
      .catch(async (error: Error) => {
        const d = await page.evaluate(() => {
          const doc = (globalThis as any).document
          const ids = [...doc.querySelectorAll('.card')].map((e: any) => e.getAttribute('data-id'))
          return {
            cards: ids.length,
            first: ids[0],
            focus: doc.querySelector('.card.focus')?.getAttribute('data-id'),
            height: doc.body.scrollHeight,
            last: ids.at(-1),
            y: (globalThis as any).scrollY,
          }
        })
        throw new Error(
          `${error.message} ${JSON.stringify(d)} first@${order.indexOf(d.first)} last@${order.indexOf(d.last)} focus@${order.indexOf(d.focus)}`,
        )
      })
    expect(await inView()).toBe(true)
    await page.keyboard.press('k')
    expect(await focused()).toBe(order[N - 2])
    expect(await inView()).toBe(true)
    // Far fewer cards drawn than sessions, wherever the view is.
    expect((await page.$$('.card')).length).toBeLessThan(100)
    await page.keyboard.press('g')
    await page.waitForFunction((id) => (globalThis as any).document.querySelector('.card.focus')?.getAttribute('data-id') === id, order[0])
    expect(await inView()).toBe(true)
    // A scroll to the bottom draws the last cards.
    await page.evaluate(() => (globalThis as any).scrollTo(0, (globalThis as any).document.body.scrollHeight))
    await page.waitForSelector(`.card[data-id="${order[N - 1]}"]`)
  })

  it('paints first from the head of the listing, before any stream: the counts and first cards of cast sessions --json', async () => {
    const p = await page.context().newPage()
    // No stream: what the page draws comes from its first call alone (GET /api/listing?head, with the key).
    await p.route('**/api/events*', (r) => r.abort())
    const first = p.waitForResponse((r) => new URL(r.url()).pathname === '/api/listing')
    await p.goto(web.base + '/')
    const res = await first
    expect(new URL(res.url()).search).toBe('?head')
    expect(res.request().headers()['x-cast-key']).toMatch(/^[\w-]{20,}$/)
    await p.waitForSelector('.card')
    expect((await pageSections(p))['needs_input']).toBe(N)
    const drawn = await p.$$eval('section[data-bucket="needs_input"] .card', (els) => els.map((e) => e.getAttribute('data-id')))
    expect(drawn.length).toBeGreaterThan(5)
    expect(drawn).toEqual(order.slice(0, drawn.length))
    // The head only: the rest comes on the stream.
    const head = await res.json()
    expect(head.head).toBe(true)
    expect(head.sessions.length).toBeLessThan(N)
    expect(head.sections.needs_input).toBe(N)
    expect(head.counts).toEqual(counts)
    expect(await p.textContent('#tally')).toBe(head.tally)
    // The page itself (which the cookie alone serves) holds no session.
    const html = await (await p.request.get(web.base + '/')).text()
    expect(html).not.toContain('Task 0')
    expect(html).not.toContain(order[0]!)
    await p.close()
  })
})
