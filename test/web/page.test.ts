/**
 * `cast web` over the demo store (`cast demo --keep`), in Debian's Chromium: the page shows the
 * sections, counts and tally `cast sessions` computes; a person triages ten cards from the
 * keyboard alone, undoes with Ctrl+Z, finds and acts through the palette; the phone layout.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {inboxPage, launchChromium, pageSections, saveArtifact, signIn, startWeb, type WebServer} from './helpers.js'

describe('cast web over the demo store', () => {
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

  it('shows the sections, counts, tally and card order of cast sessions --json, and titles as text', async () => {
    const page = await inboxPage(context, web)
    const listing = await sessions()
    const byBucket: Record<string, number> = {}
    for (const s of listing.sessions) byBucket[s.bucket] = (byBucket[s.bucket] ?? 0) + 1
    const shown = await pageSections(page)
    // Every section with rows, with its count; drop targets may show empty.
    for (const [bucket, n] of Object.entries(byBucket)) expect(shown[bucket], bucket).toBe(n)
    for (const [bucket, n] of Object.entries(shown)) expect(n).toBe(byBucket[bucket] ?? 0)
    // Seed order, top to bottom.
    const order = Object.keys(shown)
    const seed = ['questions', 'pinned', 'new', 'needs_input', 'done', 'working', 'dormant', 'idle', 'snoozed', 'stashed', 'killed']
    expect(order).toEqual(seed.filter((b) => order.includes(b)))
    // The tally line is the CLI's (its second line).
    const human = await runCast(['sessions'], {env})
    expect(await page.textContent('#tally')).toBe(human.stdout.split('\n')[1])
    // Open sections list their cards in the listing's order; collapsed ones list none until opened.
    const ids = await page.$$eval('.card', (els) => els.map((e) => e.getAttribute('data-id')))
    const open = listing.sessions.filter((s: any) => !['snoozed', 'stashed', 'killed', 'hidden', 'dismissed'].includes(s.bucket))
    expect(ids).toEqual(open.map((s: any) => s.id))
    // A card: state:reason, short id, title, ask line, meta.
    const q = listing.sessions.find((s: any) => s.bucket === 'questions')
    const cardText = await page.textContent(`.card[data-id="${q.id}"]`)
    expect(cardText).toContain(`${q.state.replace('_', ' ')}:${q.reason}`)
    expect(cardText).toContain(q.short_id)
    // The page title counts what needs you.
    expect(await page.title()).toBe(`(${listing.counts.needs_input}) cast inbox`)
    // Collapsed Stashed opens on click and shows its card and "Kill all".
    await page.click('section[data-bucket="stashed"] .toggle')
    await page.waitForSelector('section[data-bucket="stashed"] .card')
    expect(await page.isVisible('section[data-bucket="stashed"] .kill-all')).toBe(true)
    await page.close()
  })

  it('triages ten cards from the keyboard alone, undoes with Ctrl+Z, and the palette finds and acts', async () => {
    const page = await inboxPage(context, web)
    const focusedId = (p: Page) => p.getAttribute('.card.focus', 'data-id')
    const settle = async (verbLabel: string) => {
      await page.waitForFunction(
        (l) =>
          (globalThis as any).document.querySelector('#status')?.textContent?.startsWith(l) &&
          !(globalThis as any).document.querySelector('.card.pending'),
        verbLabel,
      )
    }

    // Ten cards, one key each (some with their value typed into the palette).
    const done: {id: string; verb: string}[] = []
    const plan: {key: string; label: string; verb: string; type?: string}[] = [
      {key: 'e', label: 'Mark done', verb: 'done'},
      {key: 'x', label: 'Stash', verb: 'stash'},
      {key: 'o', label: 'Dormant', verb: 'dormant'},
      {key: 's', label: 'Snooze', type: '2h', verb: 'snooze'},
      {key: 'e', label: 'Mark done', verb: 'done'},
      {key: 'x', label: 'Stash', verb: 'stash'},
      {key: 'l', label: 'Label', type: 'fleet', verb: 'label'},
      {key: 'f', label: 'Defer', verb: 'defer'},
      {key: 'p', label: 'Pin', verb: 'pin'},
      {key: 'e', label: 'Mark done', verb: 'done'},
    ]
    // Each step: move with j/k to the next untouched card of Questions, Pinned or Needs Input (the
    // demo has ten), press the verb's key.
    const focusNext = async (): Promise<string> => {
      const sel = 'section[data-bucket="questions"] .card, section[data-bucket="pinned"] .card, section[data-bucket="needs_input"] .card'
      const target = await page.$$eval(
        sel,
        (els, skip) => els.map((e) => e.getAttribute('data-id')!).find((id) => !skip.includes(id)),
        done.map((d) => d.id),
      )
      expect(target, 'an untouched card').toBeTruthy()
      for (let i = 0; i < 80 && (await focusedId(page)) !== target; i++) {
        const ids = await page.$$eval('.card', (els) => els.map((e) => e.getAttribute('data-id')))
        await page.keyboard.press(ids.indexOf(target!) > ids.indexOf(await focusedId(page)) ? 'j' : 'k')
      }

      expect(await focusedId(page)).toBe(target)
      return target!
    }

    for (const step of plan) {
      const id = await focusNext()
      await page.keyboard.press(step.key)
      if (step.type) {
        await page.waitForSelector('.palette-input')
        await page.keyboard.type(step.type)
        await page.keyboard.press('Enter')
      }

      await settle(step.label)
      done.push({id, verb: step.verb})
    }

    expect(done).toHaveLength(10)
    const after = await sessions()
    const row = (id: string) => after.sessions.find((s: any) => s.id === id)
    for (const d of done) {
      const r = row(d.id)
      if (d.verb === 'done') expect(r.state, d.id).toBe('done')
      if (d.verb === 'stash') expect(r.bucket).toBe('stashed')
      if (d.verb === 'dormant') expect(r.state).toBe('dormant')
      if (d.verb === 'snooze') expect(r.bucket).toBe('snoozed')
      if (d.verb === 'label') expect(r.labels).toEqual(['fleet'])
      if (d.verb === 'pin') expect(r.pinned).toBe(true)
    }

    // The page now shows what the CLI shows.
    const shown = await pageSections(page)
    const byBucket: Record<string, number> = {}
    for (const s of after.sessions) byBucket[s.bucket] = (byBucket[s.bucket] ?? 0) + 1
    await page.waitForFunction(
      (n) => (globalThis as any).document.querySelector('section[data-bucket="stashed"] .count')?.textContent === `(${n})`,
      byBucket.stashed,
    )
    expect((await pageSections(page)).stashed).toBe(byBucket.stashed)
    expect(shown.done).toBeGreaterThan(0)

    // Ctrl+Z undoes the last action (the same history as cast undo): the last card is not done any more.
    const last = done[done.length - 1]!
    await page.keyboard.press('Control+z')
    await settle('Undid')
    expect(row(last.id).state).toBe('done')
    expect((await sessions()).sessions.find((s: any) => s.id === last.id).state).not.toBe('done')

    // The palette: Ctrl+K, a title fragment, Enter opens that session's answer view.
    const target = after.sessions.find((s: any) => s.bucket === 'working' || s.bucket === 'dormant')
    await page.keyboard.press('Control+k')
    await page.waitForSelector('.palette-input')
    await page.keyboard.type(target.title.slice(0, 12))
    await page.keyboard.press('Enter')
    await page.waitForSelector('.answer-title')
    expect(await page.textContent('.answer-title')).toBe(target.title)
    // Alt+Z opens the palette in snooze mode for that card; a typed time snoozes it.
    await page.keyboard.press('Alt+z')
    await page.waitForSelector('.palette-title')
    expect(await page.textContent('.palette-title')).toMatch(/^Snooze for/)
    await page.keyboard.type('3h')
    await page.keyboard.press('Enter')
    await settle('Snooze')
    expect((await sessions()).sessions.find((s: any) => s.id === target.id).bucket).toBe('snoozed')
    // Escape leaves the composer, Escape again the answer view.
    await page.keyboard.press('Escape')
    await page.keyboard.press('Escape')
    // K (kill) asks first: Escape cancels and nothing is killed.
    await page.waitForSelector('.card.focus')
    const victim = (await focusedId(page))!
    await page.keyboard.press('K')
    await page.waitForSelector('.palette-title')
    expect(await page.textContent('.palette-title')).toMatch(/^Kill\?/)
    await page.keyboard.press('Escape')
    expect((await sessions()).sessions.find((s: any) => s.id === victim).bucket).not.toBe('killed')
    await page.close()
  })

  it('answers a decision card from its answer view: the options, the reasoning, a digit picks', async () => {
    const target = (await sessions()).sessions.find((s: any) => s.bucket === 'done')
    const posted = await runCast(
      [
        'decide',
        'Which <b>database</b> for the cache?',
        '--option',
        'Postgres :: one more service to run',
        '--option',
        'SQLite :: no server, one file',
        '--recommend',
        '2',
        '--why',
        'The cache is local to one machine.',
        '--session',
        target.id,
      ],
      {env},
    )
    expect(posted.code, posted.stderr).toBe(0)
    const page = await inboxPage(context, web)
    await page.waitForSelector(`section[data-bucket="questions"] .card[data-id="${target.id}"]`)
    await page.click(`.card[data-id="${target.id}"]`)
    if (!(await page.isVisible('.answer-title'))) await page.click(`.card[data-id="${target.id}"]`)
    await page.waitForSelector('.ask-box.decision')
    expect(await page.textContent('.ask-box.decision h2')).toBe('Which <b>database</b> for the cache?')
    expect(await page.textContent('.why')).toBe('The cache is local to one machine.')
    const options = await page.$$eval('.options button', (els) => els.map((e) => e.textContent))
    expect(options).toEqual(['1. Postgres — one more service to run', '2. SQLite — no server, one file (recommended)'])
    await page.keyboard.press('2')
    await page.waitForFunction(() => /^Answered: option 2/.test((globalThis as any).document.querySelector('#status')?.textContent ?? ''))
    // The card is answered: no longer among the open ones.
    const open = json(await runCast(['decide', 'list', '--json', '--all'], {env}))
    expect(JSON.stringify(open)).not.toContain('for the cache?')
    expect((await sessions()).sessions.find((s: any) => s.id === target.id).bucket).not.toBe('questions')
    await page.close()
  })

  it('fits a phone: one column, touch targets of 44 px, a manifest (screenshot kept)', async () => {
    const page = await inboxPage(context, web, {height: 844, width: 390})
    await page.screenshot({fullPage: false, path: saveArtifact('phone-390x844.png')})
    const widths = await page.$$eval('.card', (els) => els.map((e) => e.getBoundingClientRect()))
    // One column: every card starts at the same x and spans nearly the whole width.
    expect(new Set(widths.map((r) => Math.round(r.x))).size).toBe(1)
    for (const r of widths) expect(r.width).toBeGreaterThan(390 - 40)
    const small = await page.$$eval('button, select, .card', (els) =>
      els
        .filter((e) => (e as any).offsetParent !== null)
        .map((e) => ({h: e.getBoundingClientRect().height, t: e.textContent}))
        .filter((r) => r.h < 44),
    )
    expect(small).toEqual([])
    const manifest: any = await page.evaluate(async () => (await fetch('/manifest.webmanifest')).json())
    expect(manifest.display).toBe('standalone')
    // The answer view takes the whole screen.
    await page.click('.card.focus')
    await page.waitForSelector('.answer-title')
    const box = await page.$eval('#answer', (e) => e.getBoundingClientRect())
    expect(Math.round(box.width)).toBe(390)
    await page.screenshot({path: saveArtifact('phone-answer-390x844.png')})
    await page.close()
  })
})
