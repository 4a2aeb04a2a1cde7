/* global document */
/**
 * `node bench/web.js [--sessions 1000] [--runs 5] [--appends 20]`: the web inbox's budgets
 * (`--appends 0`: first paint only, as for `--sessions 10000`)
 * (DESIGN §7), each beside a floor measured in the same run, in Debian's Chromium.
 *
 * - First useful paint: navigation start to the first card drawn, over a store of N sessions,
 *   against the floor: the cards the page drew (with windowing, those in and near the viewport)
 *   as one static HTML page (no script, no data fetch) served by a bare node:http server.
 *   Median of --runs. The budget: 300 ms at 1,000 sessions; at 10,000 (--sessions 10000), 1 s,
 *   i.e. no freeze.
 * - Live: a line appended to one transcript, to the page seeing the change (the card's state
 *   changes), p95 over --appends, against the floor: the same append seen by a bare fs.watch on
 *   the folder (what any watcher of the file pays).
 * - The page's JavaScript, gzipped.
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'

import {BIN, ROOT, checkBuilt, parseArgs} from './lib/common.js'

const args = parseArgs(process.argv.slice(2), {appends: 20, runs: 5, sessions: 1000})
checkBuilt()
const {chromium} = await import('playwright-core')

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-bench-web-'))
const home = path.join(dir, 'home')
const env = {...process.env, CAST_HOME: path.join(dir, 'cast'), CAST_USER: 'bench@example.com', HOME: home, NO_COLOR: '1'}
delete env.CAST_NOW
const cwd = '/home/bench/src/app'
const proj = path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9-]/g, '-'))
fs.mkdirSync(proj, {recursive: true})
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
const ids = []
for (let n = 0; n < args.sessions; n++) {
  const id = `5e1f0000-0000-4000-8000-${String(n).padStart(12, '0')}`
  ids.push(id)
  const text =
    line(id, 0, {message: {content: `Task ${n}: make the build green`, role: 'user'}, parentUuid: null, type: 'user'}) +
    '\n' +
    line(id, 1, {
      message: {
        content: [{text: 'Done.', type: 'text'}],
        id: `m${n}`,
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

const run = (argv) => new Promise((resolve) => spawn(process.execPath, [BIN, ...argv], {env, stdio: 'ignore'}).on('exit', resolve))
await run(['sessions', '--all'])

const web = spawn(process.execPath, [BIN, 'web', '--port', '0'], {env, stdio: ['ignore', 'pipe', 'inherit']})
const login = await new Promise((resolve) => {
  let out = ''
  web.stdout.on('data', (c) => {
    out += c
    const m = /http:\/\/\S+\/login\?token=\S+/.exec(out)
    if (m) resolve(m[0])
  })
})
const base = login.slice(0, login.indexOf('/login'))
const browser = await chromium.launch({
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
const page = await context.newPage()
await page.goto(login)
await page.waitForSelector('.card')
const cards = await page.$$eval('.card', (els) => els.map((e) => e.outerHTML))
const css = fs.readFileSync(path.join(ROOT, 'dist', 'web', 'style.css'))

// The floor: the same cards, pre-rendered, no script.
const floorServer = http.createServer((req, res) => {
  if (req.url === '/style.css') return res.writeHead(200, {'content-type': 'text/css'}).end(css)
  res
    .writeHead(200, {'content-type': 'text/html'})
    .end(`<!doctype html><link rel="stylesheet" href="/style.css"><main><div id="list">${cards.join('')}</div></main>`)
})
await new Promise((r) => floorServer.listen(0, '127.0.0.1', r))
const floorBase = `http://127.0.0.1:${floorServer.address().port}`

const paint = async (url) => {
  const p = await context.newPage()
  await p.goto(url, {waitUntil: 'commit'})
  await p.waitForSelector('.card')
  const ms = await p.evaluate(() => performance.now())
  await p.close()
  return ms
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]
const castPaint = []
const floorPaint = []
for (let i = 0; i < args.runs; i++) {
  castPaint.push(await paint(base + '/'))
  floorPaint.push(await paint(floorBase + '/'))
}

// Live: append a user line (the session turns working), time until the page shows it; beside it
// the same change read by `cast sessions -w --json` (the CLI's stream, tailing the same log).
const live = []
const floorLive = []
const streamLive = []
// The cards the page drew (with windowing, those in view), and their native ids.
const drawnCards = await page.evaluate(async () => {
  const listing = await (await fetch('/api/listing')).json()
  const native = new Map(listing.sessions.map((s) => [s.id, s.native_id]))
  return [...document.querySelectorAll('.card')].map((c) => [c.getAttribute('data-id'), native.get(c.getAttribute('data-id'))])
})
const watch = spawn(process.execPath, [BIN, 'sessions', '-w', '--json'], {env, stdio: ['ignore', 'pipe', 'ignore']})
let watchOut = ''
const watchWaiters = []
watch.stdout.on('data', (c) => {
  watchOut += c
  for (const w of [...watchWaiters]) if (watchOut.includes(w.needle)) w.done(performance.now())
})
await new Promise((r) => setTimeout(r, 3000))
for (let i = 0; i < args.appends; i++) {
  const [castId, id] = drawnCards[i % drawnCards.length]
  const file = path.join(proj, `${id}.jsonl`)
  const watcher = fs.watch(proj)
  const seen = new Promise((r) => watcher.once('change', () => r(performance.now())))
  const changed = page.waitForFunction(
    (cid) => document.querySelector(`.card[data-id="${cid}"] .state`)?.textContent?.startsWith('working'),
    castId,
    {timeout: 30_000},
  )
  const streamed = new Promise((done) => watchWaiters.push({done, needle: castId}))
  watchOut = ''
  const t0 = performance.now()
  fs.appendFileSync(file, line(id, 10 + i, {message: {content: `next step ${i}`, role: 'user'}, parentUuid: 'u1', type: 'user'}) + '\n')
  floorLive.push((await seen) - t0)
  watcher.close()
  await changed
  live.push(performance.now() - t0)
  streamLive.push((await streamed) - t0)
  watchWaiters.length = 0
}
watch.kill('SIGTERM')

const js = fs.readdirSync(path.join(ROOT, 'dist', 'web')).filter((f) => f.endsWith('.js'))
const gz = zlib.gzipSync(
  Buffer.concat(js.filter((f) => f !== 'pair.js').map((f) => fs.readFileSync(path.join(ROOT, 'dist', 'web', f)))),
).length
const rows = [
  [
    'first useful paint, ' + args.sessions + ' sessions (median ms)',
    median(castPaint),
    median(floorPaint),
    args.sessions <= 1000 ? 300 : 1000,
  ],
  // --appends 0 (as at 10,000 sessions): the paint alone.
  ...(live.length === 0
    ? []
    : [
        ['live: append → page (p95 ms), floor fs.watch', p95(live), p95(floorLive), 250],
        ['live: append → page (p95 ms), floor sessions -w', p95(live), p95(streamLive), 250],
      ]),
]
console.log(`cast web bench · ${args.sessions} sessions · ${os.cpus().length} cores · load ${os.loadavg()[0].toFixed(1)}`)
console.log(`cards drawn (windowing) ${cards.length} of ${args.sessions}; the floor is those cards as static HTML`)
for (const [what, cast, floor, budget] of rows)
  console.log(
    `${what.padEnd(48)} cast ${cast.toFixed(0).padStart(5)}  floor ${floor.toFixed(0).padStart(5)}  ratio ${(cast / floor).toFixed(1).padStart(5)}  budget ${budget} ms: ${cast <= budget ? 'met' : 'NOT met'}`,
  )
console.log(`${'JavaScript, gzipped (KB)'.padEnd(48)} ${(gz / 1024).toFixed(1)}  budget 100: ${gz <= 100 * 1024 ? 'met' : 'NOT met'}`)

await browser.close()
floorServer.close()
web.kill('SIGTERM')
await new Promise((r) => web.once('exit', r))
fs.rmSync(dir, {force: true, recursive: true})
