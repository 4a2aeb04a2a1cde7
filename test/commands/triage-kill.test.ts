/**
 * `cast kill` against a real process group, and `cast snooze sweep` run concurrently with itself
 * (DESIGN §3.4 rule 1, §6.2; seed 000's kill).
 */
import fs from 'node:fs'
import path from 'node:path'

import Database from 'better-sqlite3'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {json, makeHome, startCast, type TempHome} from '../helpers/cli.js'
import {
  cast,
  castSpawned,
  groupMembers,
  HOUR,
  killGroup,
  MIN,
  row,
  sid,
  spawnGroup,
  T0,
  where,
  writeRegistry,
  writeSession,
} from './triage-helpers.js'

describe('cast kill', () => {
  let h: TempHome
  let proj: string
  const groups: number[] = []

  beforeEach(() => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
  })

  afterEach(() => {
    for (const g of groups.splice(0)) killGroup(g)
    h.cleanup()
  })

  function lastSeq(): number {
    const store = new Store(h.castHome)
    try {
      return store.lastSeq()
    } finally {
      store.close()
    }
  }

  function goneEvents(): number {
    const store = new Store(h.castHome)
    try {
      return store.transitionsSince(0, 10_000).filter((t) => t.event === 'gone').length
    } finally {
      store.close()
    }
  }

  async function liveSession(n: number, ignoreTerm = false): Promise<number> {
    writeSession(h, {cwd: proj, n})
    const pid = await spawnGroup(ignoreTerm)
    groups.push(pid)
    writeRegistry(h, pid, n, proj)
    return pid
  }

  it('stops the verified process and its descendants, names every pid, files the session under Killed and prints one gone line on the stream', async () => {
    const pid = await liveSession(1)
    const members = groupMembers(pid)
    expect(members).toHaveLength(3)
    const before = await row(h, 1)
    expect(before?.live).toBe(true)
    expect(before?.pid).toBe(pid)
    expect(where(before)).toBe('working:producing [working]')
    // A consumer resuming from the current end of the log: no race with its start.
    const watch = startCast(['sessions', '-w', '--json', '--since', String(lastSeq())], {...h.env, CAST_NOW: String(T0 + MIN)})

    const r = await cast(h, ['kill', sid(1), '--grace', '2s', '--json'])

    expect(r.code).toBe(0)
    const out = json(r)
    expect(out.killed[0]).toMatchObject({
      cancelled_schedules: 0,
      pgid: null,
      pid,
      processes: 3,
      refused: [],
      signal: 'SIGTERM',
      survivors: [],
    })
    expect(out.killed[0].signalled[0]).toBe(pid)
    expect([...out.killed[0].signalled].sort()).toEqual([...members].sort())
    expect(groupMembers(pid)).toEqual([])
    const gone = JSON.parse(await watch.nextLine(15_000))
    expect(gone).toMatchObject({bucket: 'killed', event: 'gone', reason: 'killed', session_id: sid(1), to: 'idle'})
    await watch.stop()
    expect(goneEvents()).toBe(1)
    const after = await row(h, 1)
    expect(where(after)).toBe('idle:killed [killed]')
    expect(after?.live).toBe(false)
    expect(after?.filing).toBe('killed')
    expect(json(await cast(h, ['sessions', '--json'])).counts.killed).toBe(1)
  })

  it('sends SIGKILL to what ignores SIGTERM once the grace is over', async () => {
    const pid = await liveSession(1, true)

    const r = json(await cast(h, ['kill', sid(1), '--grace', '300ms', '--json']))

    expect(r.killed[0].signal).toBe('SIGKILL')
    expect(r.killed[0].survivors).toEqual([])
    expect(groupMembers(pid)).toEqual([])
  })

  it('cancels its armed scheduled messages, and undo re-arms them and brings the card back, not the process', async () => {
    const pid = await liveSession(1)
    await cast(h, ['sessions'])
    const db = new Database(path.join(h.castHome, 'cast.db'))
    const id = db.prepare('SELECT id FROM sessions WHERE native_id = ?').pluck().get(sid(1)) as string
    db.prepare(
      `INSERT INTO schedules (id, session_id, message, due_at, every_ms, created_at, created_by, status) VALUES ('s-test1', ?, 'nudge', ?, ?, ?, 'me', 'armed')`,
    ).run(id, T0 + HOUR, 3_600_000, T0)
    db.close()

    const r = json(await cast(h, ['kill', sid(1), '--grace', '1s', '--json']))

    expect(r.killed[0].cancelled_schedules).toBe(1)
    const status = (): string => {
      const d = new Database(path.join(h.castHome, 'cast.db'), {readonly: true})
      try {
        return d.prepare(`SELECT status FROM schedules WHERE id = 's-test1'`).pluck().get() as string
      } finally {
        d.close()
      }
    }

    expect(status()).toBe('cancelled')

    const u = await cast(h, ['undo'])

    expect(u.stdout).toContain('the agent stays stopped')
    expect(status()).toBe('armed')
    const back = await row(h, 1)
    expect(back?.bucket).not.toBe('killed')
    expect(back?.live).toBe(false)
    expect(groupMembers(pid)).toEqual([])
  })

  it('a revived process cannot make a killed session busy again', async () => {
    await liveSession(1)
    await cast(h, ['kill', sid(1), '--grace', '1s'])

    const again = await spawnGroup()
    groups.push(again)
    writeRegistry(h, again, 1, proj, {status: 'busy'})

    const r = await row(h, 1, {now: T0 + 2 * MIN})
    expect(r?.live).toBe(true)
    expect(where(r)).toBe('idle:killed [killed]')

    // Killing it again stops the process that came back and files nothing new to undo.
    const again2 = json(await cast(h, ['kill', sid(1), '--grace', '1s', '--json'], {now: T0 + 3 * MIN}))
    expect(again2.action).toBeNull()
    expect(again2.killed[0]).toMatchObject({already: true, pid: again, signal: 'SIGTERM'})
    expect(groupMembers(again)).toEqual([])
    await cast(h, ['undo'], {now: T0 + 4 * MIN})
    expect(where(await row(h, 1, {now: T0 + 4 * MIN}))).not.toBe('idle:killed [killed]')
  })

  it('a stash comes back when its process dies; a hidden stash does not', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})
    const heartbeat = new Date(T0 + 2 * MIN).toISOString()
    const pids = [await spawnGroup(), await spawnGroup()]
    groups.push(...pids)
    writeRegistry(h, pids[0]!, 1, proj, {status: 'busy', updatedAt: heartbeat})
    writeRegistry(h, pids[1]!, 2, proj, {status: 'busy', updatedAt: heartbeat})
    await cast(h, ['stash', sid(1)])
    await cast(h, ['stash', '--hide', sid(2)])

    for (const p of pids) killGroup(p)
    for (let i = 0; i < 100 && pids.some((p) => groupMembers(p).length > 0); i++) await new Promise((r) => setTimeout(r, 20))

    const back = await row(h, 1, {now: T0 + 3 * MIN})
    expect(where(back)).toBe('needs_input:dead [needs_input]')
    expect(back?.filing).toBeNull()
    expect((await row(h, 2, {now: T0 + 3 * MIN}))?.bucket).toBe('hidden')
  })

  it('marks a session without a live process killed all the same', async () => {
    writeSession(h, {cwd: proj, n: 1})

    const r = await cast(h, ['kill', sid(1)])

    expect(r.code).toBe(0)
    expect(r.stdout).toContain('no live process')
    expect(where(await row(h, 1))).toBe('idle:killed [killed]')
    expect((await cast(h, ['kill', sid(1), '--grace', 'later'])).code).toBe(2)
  })
})

describe('cast snooze sweep', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
  })

  afterEach(() => h.cleanup())

  it('wakes each due snooze exactly once across concurrent sweeps, with one transition per session', async () => {
    const n = 8
    for (let i = 1; i <= n; i++) writeSession(h, {cwd: proj, n: i})
    await cast(h, ['snooze', ...Array.from({length: n - 2}, (_, i) => sid(i + 1)), '--for', '1h'])
    await cast(h, ['snooze', sid(n - 1), sid(n), '--for', '5h'])
    const due = T0 + MIN + HOUR

    // Six separate cast processes at once: the claim is what keeps each wake to one.
    const runs = await Promise.all(Array.from({length: 6}, () => castSpawned(h, ['snooze', 'sweep', '--json'], {now: due})))

    for (const r of runs) expect(r.code).toBe(0)
    const woken = runs.flatMap((r) => json(r).woken.map((s: {native_id: string}) => s.native_id))
    expect(woken.sort()).toEqual(Array.from({length: n - 2}, (_, i) => sid(i + 1)).sort())
    const store = new Store(h.castHome)
    try {
      const log = store.transitionsSince(0, 10_000)
      for (const s of store.loadSessions()) {
        const mine = log.filter((t) => t.sessionId === s.id).map((t) => `${t.to}:${t.reason}`)
        const early = Number(s.nativeId.slice(-2)) <= n - 2
        expect(mine).toEqual(
          early ? ['needs_input:settled', 'dormant:snoozed', 'needs_input:snooze_expired'] : ['needs_input:settled', 'dormant:snoozed'],
        )
      }
    } finally {
      store.close()
    }

    const again = await cast(h, ['snooze', 'sweep'], {now: due})
    expect(again.stdout).toContain('Nothing came due.')
    expect(where(await row(h, 1, {now: due}))).toBe('needs_input:snooze_expired [needs_input]')
    expect(where(await row(h, n, {now: due}))).toBe('dormant:snoozed [snoozed]')
  })

  it('prints what it woke', async () => {
    writeSession(h, {cwd: proj, n: 1, prompt: 'Port the parser'})
    await cast(h, ['snooze', sid(1), '--for', '30m'])

    const early = await cast(h, ['snooze', 'sweep'], {now: T0 + 10 * MIN})
    const r = await cast(h, ['snooze', 'sweep'], {now: T0 + 31 * MIN})

    expect(early.stdout.trim()).toBe('Nothing came due.')
    expect(r.stdout).toMatch(/^woke \w{7} {2}Port the parser {2}→ needs_input \(needs_input:snooze_expired\)$/m)
  })
})
