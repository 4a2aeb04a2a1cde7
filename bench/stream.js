/**
 * bench/stream: append-to-stream latency. 2,000 Claude Code transcripts watched by
 * `cast sessions -w --json` (which runs the ingester in-process: nobody else holds the lease);
 * lines that change state are appended to random files — an AskUserQuestion tool_use
 * (→ needs_input/question), then its tool_result, a reply and turn_duration (→ needs_input/settled)
 * — and each is timed from just before the write to the arrival of its NDJSON line.
 * Budget: p95 ≤ 250 ms.
 *
 *   node bench/stream.js [--files 10000] [--appends 120]
 */
import fs from 'node:fs'
import path from 'node:path'

import {fmtInt, fmtMs, main, parseArgs, percentile, median, row, sleep, tempDir} from './lib/common.js'
import {rng} from './lib/gen.js'
import {startWatcher, watchedCorpus} from './lib/watched.js'

const DEFAULTS = {files: 10_000, appends: 120, seed: 3}

export async function run(argv = [], log = console.error) {
  const o = parseArgs(argv, DEFAULTS)
  const corpus = watchedCorpus(o.files, log)
  const work = tempDir('stream')
  let w
  try {
    w = await startWatcher(corpus, path.join(work, 'cast'), work, log)
    const r = rng(o.seed)
    const lat = []
    let missed = 0
    let prev = -1
    for (let i = 0; i < o.appends; i++) {
      let k
      do k = r.int(1, w.corpus.sessions.length - 1)
      while (k === prev)
      prev = k
      const s = w.corpus.sessions[k]
      const wait = w.waitFor.bind(null)
      const t0 = performance.now()
      const expect = w.appender.append(s)
      const got = await wait((j) => j.id === expect.id && j.reason === expect.reason && j.to === expect.to, 5000)
      if (got) lat.push(got.at - t0)
      else missed++
      await sleep(r.int(20, 200))
    }
    lat.sort((a, b) => a - b)
    const p50 = median(lat)
    const p95 = percentile(lat, 95)
    const max = lat[lat.length - 1]
    log(
      `stream: ${fmtInt(lat.length)} appends reached the stream (${missed} missed within 5 s): p50 ${fmtMs(p50)}, p95 ${fmtMs(p95)}, max ${fmtMs(max)}`,
    )
    return [
      row(`append → NDJSON line, ${fmtInt(corpus.files)} watched files (p50 / p95 / max of ${lat.length + missed})`, {
        cast: `${fmtMs(p50)} / ${fmtMs(p95)} / ${fmtMs(max)}`,
        floor: missed ? `${missed} never arrived` : '—',
        budget: 'p95 ≤ 250 ms',
        met: p95 <= 250 && missed === 0,
        detail: {p50, p95, max, missed, latencies: lat},
      }),
    ]
  } finally {
    await w?.watcher.stop()
    fs.rmSync(work, {force: true, recursive: true})
  }
}

await main(import.meta.url, run)
