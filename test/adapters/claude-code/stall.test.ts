/**
 * A parent whose background subagent finished while its turn had ended, and that never resumed:
 * Claude Code 2.1.328's real files (test/fixtures/claude-code/real-2.1.328), cut where the task
 * notification was queued (and where it was dequeued) but no wake line followed, as a parent that
 * stops advancing until a person opens it leaves them. The registry is the live process's of that
 * run, its pid and start time swapped for this test process's own.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {EMPTY_RECORDS, TIME_LIMITS} from '../../../src/core/model/types.js'
import {classifyWorkState} from '../../../src/core/model/work-state.js'
import {compose, feedFile, HOME, parseWhole, PROJ, processStartMs} from './engine.js'

const REAL = fileURLToPath(new URL('../../fixtures/claude-code/real-2.1.328/', import.meta.url))
const NO_CHILDREN = {asking: false, producing: false}
/** When the subagent's notification was queued in that run (its queue-operation line). */
const FINISHED = Date.parse('2026-12-01T08:58:48.955Z')

function registry(name: string): {contributions: ReturnType<typeof parseWhole>; sessionId: string} {
  const rec = JSON.parse(readFileSync(join(REAL, name), 'utf8')) as Record<string, unknown>
  const live = {...rec, pid: process.pid, startedAt: processStartMs(process.pid)}
  return {
    contributions: parseWhole(join(HOME, 'sessions', `${process.pid}.json`), JSON.stringify(live)),
    sessionId: String(rec['sessionId']),
  }
}

function transcript(name: string, sessionId: string, until?: RegExp) {
  const lines = readFileSync(join(REAL, name), 'utf8').split('\n')
  const limit = until === undefined ? undefined : lines.findIndex((l) => until.test(l)) + 1
  if (limit === 0) throw new Error(`no line matches ${until}`)
  return feedFile(join(REAL, name), {as: join(PROJ, `${sessionId}.jsonl`), limit}).contributions
}

function classify(until: RegExp | undefined, now: number, file = 'subagent-full.jsonl', reg = 'registry-busy-subagent.json') {
  const r = registry(reg)
  const facts = compose(r.sessionId, [...transcript(file, r.sessionId, until), ...r.contributions])
  return {c: classifyWorkState({children: NO_CHILDREN, facts, records: EMPTY_RECORDS}, now), facts}
}

describe('Claude Code: a parent stalled after its background subagent finished', () => {
  it('the notification queued, never taken up: stalled once the window passed', () => {
    const {c, facts} = classify(/"operation":"enqueue"/, FINISHED + TIME_LIMITS.STALL_AFTER_MS + 1000)
    expect(facts.backgroundDoneAt).toBe(FINISHED)
    expect(facts.sources['backgroundDoneAt']).toMatchObject({kind: 'transcript'})
    expect(facts.backgroundWork).toBe(0)
    expect(c).toMatchObject({reason: 'stalled', rule: 5, state: 'needs_input'})
  })

  it('inside the window it reads as before, and says when it will look again', () => {
    const {c} = classify(/"operation":"enqueue"/, FINISHED + 10_000)
    expect(c.state).not.toBe('needs_input')
    expect(c.nextCheckAt).toBe(FINISHED + TIME_LIMITS.STALL_AFTER_MS)
  })

  it('dequeued but no wake line followed: still stalled', () => {
    const {c} = classify(/"operation":"dequeue"/, FINISHED + 5 * 60_000)
    expect(c.reason).toBe('stalled')
  })

  it('the wake line and the reply that followed: not stalled, whatever the time', () => {
    const {c, facts} = classify(undefined, FINISHED + 60 * 60_000)
    expect(facts.backgroundDoneAt).toBeNull()
    expect(c.reason).not.toBe('stalled')
  })

  it('a background shell a person killed hands the agent nothing: not stalled', () => {
    const {c, facts} = classify(undefined, Date.parse('2026-12-01T09:30:00Z'), 'bgshell-full.jsonl', 'registry-fresh-idle.json')
    expect(facts.backgroundDoneAt ?? null).toBeNull()
    expect(c.reason).not.toBe('stalled')
  })
})
