#!/usr/bin/env node
/**
 * An orchestrator built on cast's agent verbs, in plain Node (no dependencies).
 *
 * It spawns two workers under one label, follows `cast sessions -w --json --label L`, and each
 * time a worker stops it reads why (`cast state show`, `cast explain`) and sends it its next step
 * with `cast send --if <the state it just read>`, so a worker that moved on in the meantime is
 * never interrupted; a worker that asked a question gets an answer first. It ends when every
 * worker has stopped after its last step.
 *
 *   node examples/orchestrator.mjs [--label fleet] [--agent claude] [--cwd DIR] [--timeout 600]
 *
 * CAST says how to run cast (default: `cast` on PATH); a path ending in .js runs with node.
 */
import {execFile, spawn} from 'node:child_process'
import readline from 'node:readline'
import {parseArgs} from 'node:util'

const {values: opts} = parseArgs({
  options: {
    agent: {default: 'claude', type: 'string'},
    cwd: {default: process.cwd(), type: 'string'},
    label: {default: 'fleet', type: 'string'},
    timeout: {default: '600', type: 'string'},
  },
})

const WORKERS = [
  {
    name: 'parser',
    steps: ['Write a parser for the config format', 'Add unit tests for the parser', 'Document the parser in docs/config.md'],
  },
  {
    name: 'cli',
    steps: ['Add a --config flag to the CLI', 'Ask me which default file name --config should use', 'Add an end-to-end test for --config'],
  },
]

const castBin = process.env.CAST || 'cast'
const castArgv = castBin.endsWith('.js') ? [process.execPath, castBin] : [castBin]

function log(message) {
  process.stdout.write(`${new Date().toISOString().slice(11, 19)}  ${message}\n`)
}

/** Run a cast command; resolve {code, stdout, stderr} (never reject on a non-zero exit). */
function cast(...args) {
  return new Promise((resolve) => {
    execFile(castArgv[0], [...castArgv.slice(1), ...args], {maxBuffer: 16 << 20}, (error, stdout, stderr) => {
      resolve({code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, stdout})
    })
  })
}

async function castJson(...args) {
  const r = await cast(...args, '--json')
  if (r.code !== 0) throw new Error(`cast ${args.join(' ')} exited ${r.code}: ${r.stderr || r.stdout}`)
  return JSON.parse(r.stdout)
}

// 1. Follow the label's transitions first, so nothing a worker does after it starts is missed.
const watch = spawn(castArgv[0], [...castArgv.slice(1), 'sessions', '-w', '--json', '--label', opts.label], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const workers = new Map()

function finish(code, message) {
  log(message)
  watch.kill('SIGTERM')
  process.exit(code)
}

const timer = setTimeout(() => finish(1, `gave up after ${opts.timeout} s`), Number(opts.timeout) * 1000)
timer.unref()
process.on('SIGINT', () => finish(130, 'interrupted'))

/** Every worker finished its steps or waits for a person: the run is over. */
function done() {
  const all = [...workers.values()]
  if (!all.every((x) => x.finished)) return
  const waiting = all.filter((x) => x.waiting).length
  finish(
    0,
    waiting === 0
      ? `all ${workers.size} workers finished`
      : `${all.length - waiting} of ${workers.size} workers finished, ${waiting} waiting for you`,
  )
}

/** A worker stopped (or may have): read why, then send its next step or mark it finished. */
async function onStop(w) {
  if (w.finished) return
  if (w.handling) {
    // A stop seen while we were still reading the last one: look again when done.
    w.again = true
    return
  }

  w.handling = true
  w.again = false
  try {
    const show = await castJson('state', 'show', w.id)
    if (show.state !== 'needs_input' && show.state !== 'done') return
    const explain = await castJson('explain', w.id)
    const rule = explain.chain.find((c) => c.matched)
    log(`${w.name} (${show.short_id}) stopped: ${show.state}/${show.reason} — rule ${rule?.rule}: ${rule?.note}`)
    if (show.state_line) log(`${w.name} says (${show.state_line.status}): ${show.state_line.text.split('\n')[0]}`)
    if (show.reason === 'question') {
      // It asked something. cast send never types into an open question dialog (it could pick
      // an answer nobody chose): the question is left for a person, who sees it in cast sessions.
      const question = explain.facts.find((f) => f.fact === 'question')?.value
      log(`${w.name} asks: ${question}`)
      const refused = await cast('send', w.id, 'Go with your recommendation.', '--if', 'needs_input')
      if (refused.code === 0) log(`${w.name}: answered its question`)
      else {
        w.finished = true
        w.waiting = true
        log(`${w.name}: left for you (${refused.stderr.trim().split('\n')[0]})`)
        done()
      }
      return
    }

    if (w.next >= w.steps.length) {
      w.finished = true
      log(`${w.name} finished all ${w.steps.length} steps`)
      done()
      return
    }

    const step = w.steps[w.next]
    const sent = await cast('send', w.id, step, '--if', show.state)
    if (sent.code === 5) {
      log(`${w.name} moved on before the send (${sent.stderr.trim()}); waiting for its next stop`)
      return
    }

    if (sent.code !== 0) throw new Error(`cast send exited ${sent.code}: ${sent.stderr}`)
    w.next++
    log(`${w.name}: sent step ${w.next}/${w.steps.length}: ${step}`)
  } finally {
    w.handling = false
    if (w.again) await onStop(w)
  }
}

readline.createInterface({input: watch.stdout}).on('line', (line) => {
  const t = JSON.parse(line)
  const w = workers.get(t.id)
  if (!w) return
  log(`${w.name}: ${t.from ?? '∅'} → ${t.to} (${t.reason})`)
  if (t.to === 'needs_input' || t.to === 'done') onStop(w).catch((error) => finish(1, error.message))
})

// 2. Spawn the workers on their first step, under the label.
for (const spec of WORKERS) {
  const s = await castJson('spawn', '--agent', opts.agent, '--label', opts.label, '--cwd', opts.cwd, spec.steps[0])
  const w = {...spec, again: false, finished: false, handling: false, id: s.id, next: 1}
  workers.set(s.id, w)
  log(`spawned ${spec.name} as ${s.short_id} (${s.state}/${s.reason})`)
  // It may already have stopped before we knew its id.
  onStop(w).catch((error) => finish(1, error.message))
}
