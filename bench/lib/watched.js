/**
 * The corpus the watcher benchmarks (stream, idle) share: 2,000 settled Claude Code transcripts,
 * indexed once into a fresh CAST_HOME, then watched by `cast sessions -w --json`.
 */
import fs from 'node:fs'
import path from 'node:path'

import {BIN, NOW, baseEnv, cachedCorpus, fmtInt, fmtMs, importDist, runCast, sleep, startChild} from './common.js'
import {GEN_VERSION, generateCorpus} from './gen.js'

export function watchedCorpus(files, log, seed = 5) {
  const c = cachedCorpus(`watch-${files}f-${seed}`, {files, seed, v: GEN_VERSION}, (dir) => {
    log(`watch: generating ${fmtInt(files)} transcripts under ${dir} …`)
    // Small to medium files, every session settled: each append below is a real state change.
    const g = generateCorpus(path.join(dir, 'home'), {files, mb: files * 0.012, seed, codexShare: 0, now: NOW, endMix: ['settled']})
    const sessions = g.sessions.filter((s) => s.agent === 'claude_code')
    fs.writeFileSync(path.join(dir, 'sessions.json'), JSON.stringify(sessions))
    return {bytes: g.bytes, files: g.files, sessions: sessions.length}
  })
  const sessions = JSON.parse(fs.readFileSync(path.join(c.dir, 'sessions.json'), 'utf8'))
  return {...c, home: path.join(c.dir, 'home'), sessions}
}

/**
 * Index the corpus into `castHome`, then start `cast sessions -w --json` over it and wait until
 * it demonstrably reacts (a probe append reaches the stream). Returns the watcher and a line hook.
 */
export async function startWatcher(base, castHome, work, log) {
  // Work on a copy: the appends must not change the cached corpus.
  const home = path.join(work, 'home')
  fs.cpSync(base.home, home, {recursive: true})
  const corpus = {...base, home, sessions: base.sessions.map((s) => ({...s, path: path.join(home, path.relative(base.home, s.path))}))}
  const env = baseEnv({HOME: corpus.home, CAST_HOME: castHome, XDG_CONFIG_HOME: path.join(work, 'config')})
  const idx = runCast(['sessions', '--json'], env)
  log(`watch: indexed ${fmtInt(corpus.files)} files into a fresh store in ${fmtMs(idx.ms)}`)
  const {castId} = await importDist('core/model/ids.js')
  const listeners = new Set()
  const w = startChild(process.execPath, [BIN, 'sessions', '-w', '--json'], env, (line, at) => {
    let j
    try {
      j = JSON.parse(line)
    } catch {
      return
    }
    for (const l of listeners) l(j, at)
  })
  const appender = makeAppender(corpus, castId)
  const waitFor = (pred, ms) =>
    new Promise((resolve) => {
      const l = (j, at) => {
        if (!pred(j)) return
        listeners.delete(l)
        clearTimeout(t)
        resolve({line: j, at})
      }
      const t = setTimeout(() => {
        listeners.delete(l)
        resolve(null)
      }, ms)
      listeners.add(l)
    })
  // Warm up: the watcher syncs, then sets up its file watches; probe until a change gets through.
  const probe = corpus.sessions[0]
  const t0 = performance.now()
  for (let i = 0; ; i++) {
    if (w.child.exitCode !== null) throw new Error(`the watcher exited: ${w.stderr()}`)
    const expect = appender.append(probe)
    const got = await waitFor((j) => j.id === expect.id && j.reason === expect.reason, 1000)
    if (got) break
    if (i > 60) throw new Error(`the watcher never reported the probe: ${w.stderr()}`)
  }
  log(`watch: the watcher (pid ${w.child.pid}) reacts after ${fmtMs(performance.now() - t0)} from its start`)
  await sleep(1500)
  return {watcher: w, env, appender, waitFor, corpus}
}

/** Appends lines that change a session's state: question asked ↔ answered and settled. */
export function makeAppender(corpus, castId) {
  const phase = new Map()
  const cwdOf = new Map()
  let n = 0
  const cwd = (s) => {
    if (!cwdOf.has(s.path)) {
      const head = fs.readFileSync(s.path, 'utf8').slice(0, 64 * 1024)
      const m = /"cwd":"([^"]*)"/.exec(head)
      cwdOf.set(s.path, m ? m[1] : '/home/dev/src/api')
    }
    return cwdOf.get(s.path)
  }
  return {
    /** Append the next state-changing lines to `s`; returns what the stream should then say. */
    append(s) {
      const id = castId('claude_code', s.nativeId)
      const now = new Date().toISOString()
      const base = {
        parentUuid: null,
        isSidechain: false,
        userType: 'external',
        cwd: cwd(s),
        sessionId: s.nativeId,
        version: '2.1.180',
        gitBranch: 'main',
      }
      n++
      const open = phase.get(s.path)
      let lines
      let expect
      if (!open) {
        const tool = `toolu_bench_${n}`
        phase.set(s.path, tool)
        lines = [
          {
            ...base,
            type: 'assistant',
            uuid: `bench-a-${n}`,
            timestamp: now,
            requestId: `req_bench_${n}`,
            message: {
              id: `msg_bench_${n}`,
              type: 'message',
              role: 'assistant',
              model: 'claude-opus-4-6',
              content: [
                {
                  type: 'tool_use',
                  id: tool,
                  name: 'AskUserQuestion',
                  input: {
                    questions: [
                      {
                        question: `Which option, #${n}?`,
                        header: 'Pick',
                        multiSelect: false,
                        options: [
                          {label: 'A', description: 'a'},
                          {label: 'B', description: 'b'},
                        ],
                      },
                    ],
                  },
                },
              ],
              stop_reason: 'tool_use',
              stop_sequence: null,
              usage: {input_tokens: 3, output_tokens: 40},
            },
          },
        ]
        expect = {id, to: 'needs_input', reason: 'question'}
      } else {
        phase.delete(s.path)
        lines = [
          {
            ...base,
            type: 'user',
            uuid: `bench-r-${n}`,
            timestamp: now,
            message: {role: 'user', content: [{tool_use_id: open, type: 'tool_result', content: 'User has answered your questions: "A".'}]},
            toolUseResult: {answers: {q: 'A'}},
          },
          {
            ...base,
            type: 'assistant',
            uuid: `bench-a-${n}`,
            timestamp: now,
            requestId: `req_bench_${n}`,
            message: {
              id: `msg_bench_${n}`,
              type: 'message',
              role: 'assistant',
              model: 'claude-opus-4-6',
              content: [{type: 'text', text: 'Done with A.'}],
              stop_reason: 'end_turn',
              stop_sequence: null,
              usage: {input_tokens: 3, output_tokens: 5},
            },
          },
          {
            ...base,
            type: 'system',
            subtype: 'turn_duration',
            durationMs: 1200,
            messageCount: 3,
            isMeta: false,
            uuid: `bench-s-${n}`,
            timestamp: now,
          },
        ]
        expect = {id, to: 'needs_input', reason: 'settled'}
      }
      fs.appendFileSync(s.path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
      return expect
    },
  }
}
