import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {EMPTY_RECORDS} from '../../../src/core/model/types.js'
import {classifyWorkState} from '../../../src/core/model/work-state.js'
import {base, compose, feedFile, HOME, liveRegistry, parseWhole, processStartMs, sid, transcriptPath} from './engine.js'

const registryPath = (pid: number): string => join(HOME, 'sessions', `${pid}.json`)
const stalePath = registryPath(2147483600)
const livePath = registryPath(process.pid)

const transcript = (k: number, limit?: number) => feedFile(transcriptPath(k), {limit}).contributions
const live = (k: number, fields: Record<string, unknown>) => parseWhole(livePath, liveRegistry(sid(k), fields))

describe('the process registry ~/.claude/sessions/<pid>.json', () => {
  it('claims its session with priority 10 and maps the status', () => {
    const [c] = parseWhole(stalePath)

    expect(c).toMatchObject({
      extra: {cwd: '/tmp/proj', status: 'busy', waitingFor: null},
      facts: {},
      nativeId: sid(4),
      priority: 10,
      processClaim: {
        heartbeatAt: base,
        pid: 2147483600,
        source: {kind: 'registry', ref: stalePath},
        startedAt: base - 60_000,
        status: 'working',
      },
    })
  })

  it('a TUI registry alone makes a session (its cwd: a claude at its first prompt, 2.1.328); any other kind does not', () => {
    const [c] = parseWhole(stalePath)
    const rec = JSON.parse(readFileSync(stalePath, 'utf8')) as Record<string, unknown>

    expect(c?.facts).toEqual(rec['kind'] === 'interactive' && typeof rec['cwd'] === 'string' ? {cwd: rec['cwd']} : {})
    const [headless] = parseWhole(stalePath, JSON.stringify({...rec, entrypoint: 'sdk-cli', kind: 'sdk'}))
    expect(headless?.facts).toEqual({})
  })

  it('keeps waitingFor for compose', () => {
    const [c] = live(4, {status: 'waiting', waitingFor: 'approve Bash'})

    expect(c?.processClaim?.status).toBe('waiting')
    expect(c?.extra).toMatchObject({status: 'waiting', waitingFor: 'approve Bash'})
  })

  it('ignores a file without pid and sessionId; a file that is not JSON (torn mid-rewrite) throws, so the engine keeps what it said', () => {
    expect(parseWhole(livePath, '{"pid":12}')).toEqual([])
    expect(parseWhole(livePath, '{"sessionId":"x"}')).toEqual([])
    expect(() => parseWhole(livePath, '{"pid":1,')).toThrow()
  })

  it('a stale file (dead pid) over a mid-turn transcript: the process is reported dead', () => {
    const f = compose(sid(4), [...transcript(4), ...parseWhole(stalePath)])

    expect(f.process).toEqual({
      alive: false,
      exited: 'crash',
      heartbeatAt: base,
      pid: 2147483600,
      source: {kind: 'registry', ref: stalePath},
      status: 'working',
    })
    expect(f).toMatchObject({approval: null, settled: false})
  })

  it('a stale file older than a later prompt belongs to an earlier run: ignored', () => {
    const stale = parseWhole(
      registryPath(2147483601),
      JSON.stringify({pid: 2147483601, sessionId: sid(9), startedAt: base - 60_000, status: 'idle', updatedAt: base + 10_000}),
    )
    const f = compose(sid(9), [...transcript(9), ...stale])

    expect(f.process).toBeNull()
    expect(f.settled).toBe(true)
  })

  it('a stale idle file written before the prompt of a turn still open: the process died before writing busy, dead (2.1.328 kill -9)', () => {
    const stale = parseWhole(
      registryPath(2147483603),
      JSON.stringify({pid: 2147483603, sessionId: sid(4), startedAt: base - 60_000, status: 'idle', updatedAt: base - 30_000}),
    )
    const f = compose(sid(4), [...transcript(4), ...stale])

    expect(f.process).toMatchObject({alive: false, exited: 'crash', pid: 2147483603})
    expect(f.settled).toBe(false)
  })

  it('a stale file drops background work: the shells died with the process', () => {
    const stale = parseWhole(
      registryPath(2147483602),
      JSON.stringify({pid: 2147483602, sessionId: sid(5), startedAt: base - 60_000, status: 'idle', updatedAt: base + 5_000}),
    )

    expect(compose(sid(5), transcript(5, 5)).backgroundWork).toBe(1)
    expect(compose(sid(5), [...transcript(5, 5), ...stale])).toMatchObject({backgroundWork: 0, process: {alive: false, exited: 'crash'}})
  })

  it('a live process waiting on "approve Bash" is an approval hard block', () => {
    const f = compose(sid(4), [
      ...transcript(4),
      ...live(4, {status: 'waiting', statusUpdatedAt: base + 3000, updatedAt: base + 3000, waitingFor: 'approve Bash'}),
    ])

    expect(f.approval).toEqual({at: base + 3000, source: {kind: 'registry', ref: livePath}, text: 'Bash'})
    expect(f.process).toMatchObject({alive: true, exited: null, pid: process.pid, status: 'waiting'})
    expect(f.settled).toBe(false)
  })

  it('uses the real start time of this process', () => {
    const [c] = live(4, {status: 'busy'})

    expect(c?.processClaim?.startedAt).toBe(processStartMs(process.pid))
  })

  it('a worker or sandbox request is an approval too', () => {
    const f = compose(sid(4), [...transcript(4), ...live(4, {status: 'waiting', updatedAt: base + 3000, waitingFor: 'sandbox request'})])

    expect(f.approval?.text).toBe('sandbox request')
  })

  it('a live process busy is working', () => {
    const f = compose(sid(4), [...transcript(4), ...live(4, {status: 'busy', statusUpdatedAt: base, updatedAt: base})])

    expect(f.process).toMatchObject({alive: true, status: 'working'})
    expect(f.approval).toBeNull()
  })

  it('a live process idle has settled the turn, whatever the transcript shows', () => {
    const f = compose(sid(4), [...transcript(4), ...live(4, {status: 'idle', statusUpdatedAt: base + 9000, updatedAt: base + 9000})])

    expect(f).toMatchObject({process: {alive: true, status: 'idle'}, settled: true})
    expect(f.sources['settled']).toEqual({kind: 'registry', ref: livePath})
  })

  it('an idle status written before the latest prompt does not settle the new turn', () => {
    const f = compose(sid(9), [...transcript(9, 5), ...live(9, {status: 'idle', statusUpdatedAt: base + 30_000, updatedAt: base + 30_000})])

    expect(f.settled).toBe(false)
  })

  it('a dialog open is a question; the transcript question keeps its text', () => {
    const dialog = {status: 'waiting', statusUpdatedAt: base + 4000, updatedAt: base + 4000, waitingFor: 'dialog open'}

    expect(compose(sid(4), [...transcript(4), ...live(4, dialog)]).question).toMatchObject({
      source: {kind: 'registry'},
      text: 'dialog open',
    })
    expect(compose(sid(2), [...transcript(2, 3), ...live(2, dialog)]).question?.text).toBe('Which database should I use?')
  })

  it('a live process gone idle after a question closed it', () => {
    const f = compose(sid(2), [...transcript(2, 3), ...live(2, {status: 'idle', statusUpdatedAt: base + 50_000, updatedAt: base + 50_000})])

    expect(f.question).toBeNull()
  })

  it('a registry saying busy after the question does not close the open AskUserQuestion call: the transcript wins', () => {
    const f = compose(sid(2), [...transcript(2, 3), ...live(2, {status: 'busy', statusUpdatedAt: base + 50_000, updatedAt: base + 50_000})])

    expect(f.question).toMatchObject({source: {kind: 'transcript'}, text: 'Which database should I use?'})
    expect(f.process).toMatchObject({alive: true, status: 'working'})
    expect(classifyWorkState({children: {asking: false, producing: false}, facts: f, records: EMPTY_RECORDS}, base + 60_000)).toMatchObject(
      {
        reason: 'question',
        state: 'needs_input',
      },
    )
  })

  it('the registry name titles a session without a custom or ai title', () => {
    const named = live(3, {name: 'migrations', nameSource: 'user', status: 'busy'})
    const derived = live(3, {name: 'proj', nameSource: 'derived', status: 'busy'})

    expect(compose(sid(3), [...transcript(3), ...named]).title).toBe('migrations')
    expect(compose(sid(3), [...transcript(3), ...derived]).title).toBe('Run the migrations')
    expect(compose(sid(1), [...transcript(1), ...live(1, {name: 'other', nameSource: 'user'})]).title).toBe('parser streaming')
  })

  it('a registry alone still gives a session its cwd, start and process', () => {
    const f = compose(sid(12), live(12, {status: 'idle'}))

    // Nothing asked yet: nothing to settle (the session is new, idle).
    expect(f).toMatchObject({
      createdAt: processStartMs(process.pid),
      cwd: '/tmp/proj',
      messages: 0,
      process: {alive: true, status: 'idle'},
      settled: false,
    })
  })
})
