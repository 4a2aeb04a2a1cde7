/* global document, window, MutationObserver, requestAnimationFrame */
/**
 * bench/web (issue 26 points 4 and 7): the web inbox's budgets, each beside a floor measured in
 * the same run, in Debian's Chromium (`CAST_TEST_CHROMIUM` overrides the path).
 *
 * - First useful paint: navigation start to the first card drawn, over a store of N sessions,
 *   against the floor: the cards the page drew (with windowing, those in and near the viewport)
 *   as one static HTML page (no script, no data fetch) served by a bare node:http server. Cast
 *   and floor rounds interleaved, median of --runs. Budget: 300 ms at 1,000 sessions; at 10,000
 *   (`--sessions 10000`) 1 s, i.e. no freeze. Beside it (informational) the first load after the
 *   server started, before its listing was ever built and kept.
 * - Live: a line appended to one transcript, to the page showing the change (the card's state),
 *   p95 over --appends, against two floors: a bare fs.watch on the folder (what any watcher of the
 *   file pays) and `cast sessions -w --json` (the CLI's stream, tailing the same log). Budget 250 ms.
 * - The server at rest (a page connected, nothing changing): its CPU (utime + stime of it and its
 *   children, /proc) over --idle seconds. Budget < 1% of a core.
 * - The page's JavaScript, gzipped. Budget 100 KB.
 * A missed budget records the profile of the server under `node --cpu-prof` serving --runs page
 * loads and 5 appends (bench/lib/profile.js), printed under the miss (bench/lib/budgets.js).
 *
 *   node bench/web.js [--sessions 1000] [--runs 5] [--appends 20] [--idle 20]
 *   node bench/web.js --sessions 10000 --appends 0 --idle 0
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import zlib from 'node:zlib'

import {BIN, ROOT, checkBuilt, median, parseArgs, percentile, printTable, row, sleep, tempDir} from './lib/common.js'
import {printBudgets} from './lib/budgets.js'
import {topSelf} from './lib/profile.js'
import {HZ, treeTicks} from './lib/proc.js'

const DEFAULTS = {appends: 20, runs: 5, sessions: 1000, idle: 20}
const PAINT_BUDGET = (n) => (n <= 1000 ? 300 : 1000)
const LIVE_BUDGET = 250
const IDLE_BUDGET = 1
const JS_BUDGET_KB = 100
/** Sessions pinned for the appends. */
const PINNED = 8
const load = () => os.loadavg()[0]

/**
 * In every page (cast's and the floor's alike), before its own scripts: the time of the frame
 * after the first .card entered the document (the first useful paint), as window.__castFirstCard.
 */
const FIRST_CARD = () => {
  new MutationObserver((_, obs) => {
    if (!document.querySelector('.card')) return
    obs.disconnect()
    requestAnimationFrame(() => (window.__castFirstCard = performance.now()))
  }).observe(document, {childList: true, subtree: true})
}

/** A store of `n` Claude Code sessions, each done (a prompt and an answer a minute ago). */
function corpus(dir, n) {
  const home = path.join(dir, 'home')
  const cwd = '/home/bench/src/app'
  const proj = path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9-]/g, '-'))
  fs.mkdirSync(proj, {recursive: true})
  const ids = []
  const line = (id, i, o) =>
    JSON.stringify({
      cwd,
      isSidechain: false,
      sessionId: id,
      timestamp: new Date(Date.now() - 60_000 + i).toISOString(),
      userType: 'external',
      uuid: `u${i}`,
      version: '2.1.100',
      ...o,
    })
  for (let k = 0; k < n; k++) {
    const id = `5e1f0000-0000-4000-8000-${String(k).padStart(12, '0')}`
    ids.push(id)
    const text =
      line(id, 0, {message: {content: `Task ${k}: make the build green`, role: 'user'}, parentUuid: null, type: 'user'}) +
      '\n' +
      line(id, 1, {
        message: {
          content: [{text: 'Done.', type: 'text'}],
          id: `m${k}`,
          model: 'claude-sonnet-4-5',
          role: 'assistant',
          stop_reason: 'end_turn',
          type: 'message',
        },
        parentUuid: 'u0',
        type: 'assistant',
      }) +
      '\n'
    fs.writeFileSync(path.join(proj, `${id}.jsonl`), text)
  }
  return {home, proj, line, ids}
}

/** `cast web --port 0` (under `node flags`); resolves with the process and its login address. */
async function startWeb(env, nodeFlags = []) {
  const web = spawn(process.execPath, [...nodeFlags, BIN, 'web', '--port', '0'], {env, stdio: ['ignore', 'pipe', 'inherit']})
  const login = await new Promise((resolve, reject) => {
    let out = ''
    web.stdout.on('data', (c) => {
      out += c
      const m = /http:\/\/\S+\/login\?token=\S+/.exec(out)
      if (m) resolve(m[0])
    })
    web.once('exit', (code) => reject(new Error(`cast web exited (${code})`)))
  })
  return {web, login, base: login.slice(0, login.indexOf('/login'))}
}

async function stopWeb(web) {
  if (web.exitCode !== null) return
  const gone = new Promise((r) => web.once('exit', r))
  web.kill('SIGTERM')
  await Promise.race([gone, sleep(10_000)])
}

/** Navigation start to the first card drawn (ms), in a fresh tab; its timeline into `timeline`. */
async function paint(context, url, timeline = []) {
  const p = await context.newPage()
  try {
    await p.goto(url, {waitUntil: 'commit'})
    await p.waitForFunction(() => window.__castFirstCard, null, {timeout: 60_000})
    const ms = await p.evaluate(() => window.__castFirstCard)
    // The timeline of the load (Chromium's navigation and resource timing), for the log.
    const t = await p.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0]
      const res = performance.getEntriesByType('resource')
      return {
        firstByte: nav?.responseStart ?? 0,
        html: nav?.responseEnd ?? 0,
        assets: Math.max(0, ...res.map((r) => r.responseEnd)),
        domContentLoaded: nav?.domContentLoadedEventStart ?? 0,
      }
    })
    timeline.push({...t, paint: ms})
    return ms
  } finally {
    await p.close()
  }
}

/** Resolves with performance.now() when `p` does, or null after `ms`. */
const within = (p, ms) => Promise.race([p, sleep(ms).then(() => null)])

/**
 * Append a user line to the transcripts of the drawn cards, one after another; time until the
 * page shows the card working, beside fs.watch and (`watchEnv`) `cast sessions -w --json`.
 */
async function appends(page, drawn, c, count, watchEnv, turns) {
  const live = []
  const floorLive = []
  const streamLive = []
  let watch = null
  let watchOut = ''
  const waiters = []
  if (watchEnv) {
    watch = spawn(process.execPath, [BIN, 'sessions', '-w', '--json'], {env: watchEnv, stdio: ['ignore', 'pipe', 'ignore']})
    watch.stdout.on('data', (chunk) => {
      watchOut += chunk
      for (const w of [...waiters]) if (watchOut.includes(w.needle)) w.done(performance.now())
    })
    await sleep(3000)
  }
  try {
    for (let i = 0; i < count; i++) {
      const [castId, id] = drawn[i % drawn.length]
      const file = path.join(c.proj, `${id}.jsonl`)
      // A prompt turns the session working; the next time, the agent's answer ends the turn.
      const n = turns.get(id) ?? 0
      turns.set(id, n + 1)
      const prompt = n % 2 === 0
      const watcher = fs.watch(c.proj)
      const seen = new Promise((r) => watcher.once('change', () => r(performance.now())))
      const changed = page.waitForFunction(
        ([cid, working]) => document.querySelector(`.card[data-id="${cid}"] .state`)?.textContent?.startsWith('working') === working,
        [castId, prompt],
        {polling: 'raf', timeout: 30_000},
      )
      waiters.length = 0
      const streamed = watch ? new Promise((done) => waiters.push({done, needle: castId})) : null
      watchOut = ''
      const t0 = performance.now()
      const k = 10 + 2 * n
      fs.appendFileSync(
        file,
        (prompt
          ? c.line(id, k, {message: {content: `next step ${n}`, role: 'user'}, parentUuid: `u${k - 1}`, type: 'user'})
          : c.line(id, k, {
              message: {
                content: [{text: 'Done.', type: 'text'}],
                id: `m${id}-${k}`,
                model: 'claude-sonnet-4-5',
                role: 'assistant',
                stop_reason: 'end_turn',
                type: 'message',
              },
              parentUuid: `u${k - 1}`,
              type: 'assistant',
            })) + '\n',
      )
      await changed.catch((error) => {
        throw new Error(`append ${i} (${prompt ? 'a prompt' : 'an answer'}) to ${castId}: the page never showed it: ${error.message}`)
      })
      live.push(performance.now() - t0)
      const f = await within(seen, 5000)
      if (f !== null) floorLive.push(f - t0)
      watcher.close()
      if (streamed) {
        const s = await within(streamed, 10_000)
        if (s !== null) streamLive.push(s - t0)
      }
    }
  } finally {
    watch?.kill('SIGTERM')
  }
  return {live, floorLive, streamLive}
}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const {chromium} = await import('playwright-core')
  const dir = tempDir('web')
  const env = {
    ...process.env,
    CAST_HOME: path.join(dir, 'cast'),
    CAST_USER: 'bench@example.com',
    HOME: path.join(dir, 'home'),
    NO_COLOR: '1',
  }
  delete env.CAST_NOW
  const c = corpus(dir, o.sessions)
  const rows = []
  const turns = new Map()
  let browser = null
  let server = null
  let floorServer = null
  try {
    await new Promise((r) => spawn(process.execPath, [BIN, 'sessions', '--all'], {env, stdio: 'ignore'}).on('exit', r))
    // The sessions the appends change are pinned: their cards stay drawn (the Pinned section, at
    // the top) whatever state they move to.
    const pinned = c.ids.slice(0, PINNED)
    await new Promise((r) => spawn(process.execPath, [BIN, 'pin', ...pinned], {env, stdio: 'ignore'}).on('exit', r))
    const l0 = load()
    browser = await chromium.launch({
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      executablePath: process.env.CAST_TEST_CHROMIUM || '/usr/bin/chromium',
    })
    const context = await browser.newContext()
    await context.addInitScript(FIRST_CARD)
    server = await startWeb(env)
    // Signing in (the token is good once), then the first load after the server started.
    const signIn = await context.newPage()
    await signIn.goto(server.login, {waitUntil: 'commit'})
    await signIn.close()
    const cold = await paint(context, server.base + '/')
    const page = await context.newPage()
    await page.goto(server.base + '/')
    await page.waitForSelector('.card')
    // The whole listing (the stream's snapshot) is in the page: the cards drawn from it.
    await page.waitForFunction(() => document.querySelector('#conn')?.textContent === 'live')
    const cards = await page.$$eval('.card', (els) => els.map((e) => e.outerHTML))
    const css = fs.readFileSync(path.join(ROOT, 'dist', 'web', 'style.css'))

    // The floor: the same cards, pre-rendered, no script.
    floorServer = http.createServer((req, res) => {
      if (req.url === '/style.css') return res.writeHead(200, {'content-type': 'text/css'}).end(css)
      res
        .writeHead(200, {'content-type': 'text/html'})
        .end(`<!doctype html><link rel="stylesheet" href="/style.css"><main><div id="list">${cards.join('')}</div></main>`)
    })
    await new Promise((r) => floorServer.listen(0, '127.0.0.1', r))
    const floorBase = `http://127.0.0.1:${floorServer.address().port}`

    const castPaint = []
    const floorPaint = []
    const timeline = []
    for (let i = 0; i < o.runs; i++) {
      castPaint.push(await paint(context, server.base + '/', timeline))
      floorPaint.push(await paint(context, floorBase + '/'))
    }
    const mid = (k) => median(timeline.map((t) => t[k])).toFixed(0)
    log(
      `web: the page's timeline (median ms from navigation start): first byte ${mid('firstByte')}, HTML ${mid('html')}, assets ${mid('assets')}, DOMContentLoaded ${mid('domContentLoaded')}, first card ${mid('paint')}`,
    )
    const l1 = load()
    log(
      `web: ${o.sessions} sessions, ${cards.length} cards drawn; paint cast ${castPaint.map((t) => t.toFixed(0)).join(' ')} ms, floor ${floorPaint.map((t) => t.toFixed(0)).join(' ')} ms; first load after start ${cold.toFixed(0)} ms; load ${l0.toFixed(1)}→${l1.toFixed(1)}`,
    )
    const cp = median(castPaint)
    const fp = median(floorPaint)
    const paintBudget = PAINT_BUDGET(o.sessions)
    rows.push(
      row(`web first useful paint, ${o.sessions.toLocaleString('en-US')} sessions (median of ${o.runs})`, {
        cast: `${cp.toFixed(0)} ms (${cards.length} cards drawn)`,
        floor: `same cards as static HTML ${fp.toFixed(0)} ms`,
        ratio: cp / fp,
        budget: `≤ ${paintBudget} ms`,
        met: cp <= paintBudget,
        detail: {castPaint, floorPaint, cold, cards: cards.length, timeline, loadavg: [l0, l1]},
      }),
      row(`web first paint, first load after the server started, ${o.sessions.toLocaleString('en-US')} sessions`, {
        cast: `${cold.toFixed(0)} ms`,
        floor: `same cards as static HTML ${fp.toFixed(0)} ms`,
        ratio: cold / fp,
        detail: {cold},
      }),
    )

    if (o.appends > 0) {
      // The cards the page drew, and their native ids (the transcript to append to).
      const drawn = await page.evaluate(async () => {
        const listing = await (await fetch('/api/listing')).json()
        const native = new Map(listing.sessions.map((s) => [s.id, s.native_id]))
        return [...document.querySelectorAll('section[data-bucket="pinned"] .card')].map((el) => [
          el.getAttribute('data-id'),
          native.get(el.getAttribute('data-id')),
        ])
      })
      const l2 = load()
      const got = await appends(page, drawn, c, o.appends, env, turns)
      const l3 = load()
      log(
        `web: live cast ${got.live.map((t) => t.toFixed(0)).join(' ')} ms; fs.watch ${got.floorLive.map((t) => t.toFixed(0)).join(' ')}; sessions -w ${got.streamLive.map((t) => t.toFixed(0)).join(' ')}; load ${l2.toFixed(1)}→${l3.toFixed(1)}`,
      )
      const lp = percentile(got.live, 95)
      const sp = got.streamLive.length > 0 ? percentile(got.streamLive, 95) : NaN
      const wp = got.floorLive.length > 0 ? percentile(got.floorLive, 95) : NaN
      rows.push(
        row(`web live: transcript append → page, p95 of ${o.appends}, ${o.sessions.toLocaleString('en-US')} sessions`, {
          cast: `${lp.toFixed(0)} ms`,
          floor: `cast sessions -w ${sp.toFixed(0)} ms · fs.watch ${wp.toFixed(0)} ms`,
          ratio: lp / sp,
          budget: `≤ ${LIVE_BUDGET} ms`,
          met: lp <= LIVE_BUDGET,
          detail: {...got, loadavg: [l2, l3]},
        }),
      )
    }

    if (o.idle > 0) {
      // At rest: the page connected, nothing written.
      await sleep(5000)
      const pid = server.web.pid
      const a = treeTicks(pid)
      const t0 = performance.now()
      const l4 = load()
      await sleep(o.idle * 1000)
      const b = treeTicks(pid)
      const secs = (performance.now() - t0) / 1000
      const pct = a && b ? ((b.total - a.total) / HZ / secs) * 100 : NaN
      log(`web: idle ${pct.toFixed(2)}% of a core over ${secs.toFixed(0)} s; load ${l4.toFixed(1)}→${load().toFixed(1)}`)
      rows.push(
        row(`web server at rest (CPU), a page connected, ${o.sessions.toLocaleString('en-US')} sessions`, {
          cast: `${pct.toFixed(2)}% of a core over ${secs.toFixed(0)} s`,
          budget: `< ${IDLE_BUDGET}% of a core`,
          met: pct < IDLE_BUDGET,
          detail: {pct, secs, loadavg: [l4, load()]},
        }),
      )
    }

    const js = fs.readdirSync(path.join(ROOT, 'dist', 'web')).filter((f) => f.endsWith('.js') && f !== 'pair.js')
    const gz = zlib.gzipSync(Buffer.concat(js.map((f) => fs.readFileSync(path.join(ROOT, 'dist', 'web', f))))).length / 1024
    rows.push(
      row('web page JavaScript, gzipped', {
        cast: `${gz.toFixed(1)} KB (${js.length} modules)`,
        budget: `≤ ${JS_BUDGET_KB} KB`,
        met: gz <= JS_BUDGET_KB,
      }),
    )
    await page.close()
    await stopWeb(server.web)

    // A miss: the server's profile over the same work, for the summary.
    const missed = rows.filter((r) => r.met === false && /paint|live/.test(r.figure))
    if (missed.length > 0 && o.runs > 0) {
      const profDir = tempDir('web-prof')
      try {
        const p = await startWeb(env, ['--cpu-prof', `--cpu-prof-dir=${profDir}`])
        const ctx = await browser.newContext()
        await ctx.addInitScript(FIRST_CARD)
        const s = await ctx.newPage()
        await s.goto(p.login, {waitUntil: 'commit'})
        await s.close()
        for (let i = 0; i < o.runs; i++) await paint(ctx, p.base + '/')
        if (o.appends > 0) {
          const pg = await ctx.newPage()
          await pg.goto(p.base + '/')
          await pg.waitForFunction(() => document.querySelector('#conn')?.textContent === 'live')
          const drawn = await pg.evaluate(async () => {
            const listing = await (await fetch('/api/listing')).json()
            const native = new Map(listing.sessions.map((x) => [x.id, x.native_id]))
            return [...document.querySelectorAll('section[data-bucket="pinned"] .card')].map((el) => [
              el.getAttribute('data-id'),
              native.get(el.getAttribute('data-id')),
            ])
          })
          await appends(pg, drawn, c, 5, null, turns)
        }
        await ctx.close()
        await stopWeb(p.web)
        const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'))
        const top = file ? topSelf(JSON.parse(fs.readFileSync(path.join(profDir, file), 'utf8')), 8) : null
        for (const r of missed) r.detail.profile = top
      } catch (error) {
        log(`web: the profile run failed: ${error.message}`)
      } finally {
        fs.rmSync(profDir, {force: true, recursive: true})
      }
    }
    return rows
  } catch (error) {
    log(`web: failed: ${error.stack ?? error}`)
    throw error
  } finally {
    await browser?.close().catch(() => undefined)
    floorServer?.close()
    if (server) await stopWeb(server.web)
    fs.rmSync(dir, {force: true, maxRetries: 5, recursive: true})
  }
}

// Run on its own: the table, then the budget lines with the profile under a miss.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkBuilt()
  const rows = await run(process.argv.slice(2), (m) => process.stderr.write(m + '\n'))
  process.stdout.write(
    `cast web bench · ${os.cpus().length} cores · load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}\n`,
  )
  printTable(rows)
  printBudgets(rows)
}
