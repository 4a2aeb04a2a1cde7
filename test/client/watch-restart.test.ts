/**
 * The library's `watch` while the daemon restarts mid-stream (built dist, real daemon, real
 * files): three workers keep asking and being answered the whole time, the daemon is stopped and
 * started again, then killed (SIGKILL) and started again, and every transition the log holds
 * from the watch's start reaches the iterator exactly once, in seq order.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, waitFor} from '../fakes/agents.js'
import {
  claudeLines,
  claudeTranscriptPath,
  killStarted,
  makeHome,
  ROOT,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'

type Lib = typeof import('../../src/lib/client/index.js')
const lib = (): Promise<Lib> => import(path.join(ROOT, 'dist/lib/client/index.js')) as Promise<Lib>
const sid = (n: number): string => `5e1f0000-0000-4000-8000-0000000a${String(n).padStart(4, '0')}`
const WORKERS = [1, 2, 3]

describe('the library’s watch across daemon restarts', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
  })

  afterEach(() => {
    killStarted()
    h.cleanup()
  })

  const file = (n: number): string => claudeTranscriptPath(h.home, proj, sid(n))
  const line = (n: number, k: number, kind: 'ask' | 'answer'): string =>
    JSON.stringify(
      kind === 'ask'
        ? {
            cwd: proj,
            message: {
              content: [{id: `toolu_${k}`, input: {questions: [{question: `Step ${k}?`}]}, name: 'AskUserQuestion', type: 'tool_use'}],
              id: `msg_${k}`,
              model: 'claude-opus-4',
              role: 'assistant',
              type: 'message',
            },
            sessionId: sid(n),
            timestamp: new Date().toISOString(),
            type: 'assistant',
            uuid: `q${n}-${k}`,
          }
        : {
            cwd: proj,
            message: {content: [{content: 'yes', tool_use_id: `toolu_${k}`, type: 'tool_result'}], role: 'user'},
            sessionId: sid(n),
            timestamp: new Date().toISOString(),
            type: 'user',
            uuid: `r${n}-${k}`,
          },
    ) + '\n'

  it('0 lost, 0 doubled while transitions are produced through a stop and a kill of the daemon', async () => {
    for (const n of WORKERS)
      writeFile(
        file(n),
        claudeLines({at: new Date(Date.now() - 5000), cwd: proj, prompt: `Worker ${n}`, sessionId: sid(n), settled: false}),
      )
    let daemon = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome, 60_000)

    const {openInbox} = await lib()
    const inbox = await openInbox({env: h.env})
    const start = inbox.storeHandle.lastSeq()
    const seen: {seq: number; event: string; id: string; to: string}[] = []
    const abort = new AbortController()
    const watching = (async () => {
      for await (const l of inbox.watch({pollMs: 50, signal: abort.signal, since: start})) seen.push(l)
    })()

    // The workers: each step asks a question and, a beat later, gets its answer.
    let producing = true
    let step = 0
    const producer = (async () => {
      while (producing) {
        step++
        for (const n of WORKERS) fs.appendFileSync(file(n), line(n, step, 'ask'))
        await new Promise((r) => setTimeout(r, 150))
        for (const n of WORKERS) fs.appendFileSync(file(n), line(n, step, 'answer'))
        await new Promise((r) => setTimeout(r, 150))
      }
    })()
    const grows = async (more: number): Promise<void> => {
      const want = seen.length + more
      await waitFor(
        () => seen.length >= want,
        60_000,
        () => `saw ${seen.length} of ${want}`,
      )
    }

    await grows(6)
    await daemon.stop()
    daemon = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome, 60_000)
    await grows(6)
    daemon.child.kill('SIGKILL')
    await daemon.stop()
    daemon = startCast(['daemon'], h.env)
    await waitForWatcher(h.castHome, 60_000)
    await grows(6)

    // The last step ends on a question: each worker's last transition is into needs_input.
    producing = false
    await producer
    const final = step + 1
    for (const n of WORKERS) fs.appendFileSync(file(n), line(n, final, 'ask'))
    const ids = new Map<string, number>()
    for (const s of (await inbox.sessions({all: true})).sessions) if (s.native_id.startsWith('5e1f0000')) ids.set(s.id, 0)
    expect(ids.size).toBe(3)
    const settled = (): boolean => {
      const rows = inbox.storeHandle.loadSessions([...ids.keys()])
      return rows.every((r) => r.state === 'needs_input' && r.facts.question?.text === `Step ${final}?`)
    }
    await waitFor(settled, 60_000, () => JSON.stringify(seen.slice(-6)))
    const last = inbox.storeHandle.lastSeq()
    await waitFor(
      () => seen.length > 0 && seen.at(-1)!.seq >= last,
      60_000,
      () => `watch at ${seen.at(-1)?.seq}, log at ${last}`,
    )
    await daemon.stop()
    abort.abort()
    await watching

    // The log itself, read raw: every row after the start, each once, is what the watch gave.
    const logged = inbox.storeHandle.transitionsSince(start, 100_000).filter((t) => t.seq <= seen.at(-1)!.seq)
    const seqs = seen.map((l) => l.seq)
    expect(seqs.length).toBeGreaterThan(18)
    expect(new Set(seqs).size).toBe(seqs.length)
    expect(seqs).toEqual(logged.map((t) => t.seq))
    expect(seen.map((l) => `${l.id} ${l.to}`)).toEqual(logged.map((t) => `${t.sessionId} ${t.to}`))
    // And it went on through the restarts: the workers moved both ways many times.
    for (const id of ids.keys()) expect(seen.filter((l) => l.id === id && l.to === 'needs_input').length).toBeGreaterThan(1)

    inbox.close()
  }, 300_000)
})
