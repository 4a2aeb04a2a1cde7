/**
 * The filing verbs, snooze and undo, through the built CLI on a real store (DESIGN §3.3, §3.6;
 * seed 000's triage catalog, seed 002's park and snooze). The clock is CAST_NOW.
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {localTime} from '../../src/lib/views/views.js'
import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {ANA, appendQuestion, cast, HOUR, MIN, row, rows, sid, T0, where, writeSession} from './triage-helpers.js'

describe('triage verbs', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
  })

  afterEach(() => h.cleanup())

  /** Every transition the store logged for session n, as `to:reason [bucket] event`. */
  function log(n: number): string[] {
    const store = new Store(h.castHome)
    try {
      const id = store.loadSessions().find((r) => r.nativeId === sid(n))!.id
      return store
        .transitionsSince(0, 10_000)
        .filter((t) => t.sessionId === id)
        .map((t) => `${t.to}:${t.reason} [${t.bucket}]${t.event === 'transition' ? '' : ` ${t.event}`}`)
    } finally {
      store.close()
    }
  }

  describe('snooze', () => {
    it('files a session dormant in Snoozed, then needs_input/snooze_expired when its time comes, until the next activity', async () => {
      writeSession(h, {cwd: proj, n: 1})
      const at = T0 + MIN

      const r = await cast(h, ['snooze', sid(1), '--for', '1h'], {now: at})

      expect(r.code).toBe(0)
      // People read local time (issue 13 point 7); the JSON below keeps ISO UTC.
      expect(r.stdout).toContain(`snoozed until ${localTime(Date.parse('2026-11-29T22:01:00.000Z'), at)} → snoozed (dormant:snoozed)`)
      const snoozed = await row(h, 1, {now: at})
      expect(where(snoozed)).toBe('dormant:snoozed [snoozed]')
      expect(snoozed?.filing).toBe('snoozed')
      expect(snoozed?.snoozed_until).toBe('2026-11-29T22:01:00.000Z')
      expect(where(await row(h, 1, {now: at + HOUR - 1}))).toBe('dormant:snoozed [snoozed]')
      expect(where(await row(h, 1, {now: at + HOUR}))).toBe('needs_input:snooze_expired [needs_input]')

      appendQuestion(h, {cwd: proj, n: 1}, 'Which region?', at + HOUR + MIN)
      expect(where(await row(h, 1, {now: at + HOUR + 2 * MIN}))).toBe('needs_input:question [questions]')
    })

    it('takes --until times, and refuses bad durations and past times with exit 2 and one line, changing nothing', async () => {
      writeSession(h, {cwd: proj, n: 1})

      const bad = await Promise.all([
        cast(h, ['snooze', sid(1), '--for', '15']),
        cast(h, ['snooze', sid(1), '--for', 'soon']),
        cast(h, ['snooze', sid(1), '--until', 'yesterday 9am']),
        cast(h, ['snooze', sid(1), '--until', 'whenever']),
        cast(h, ['snooze', sid(1)]),
        cast(h, ['snooze', sid(1), '--for', '1h', '--until', 'tomorrow']),
      ])
      for (const r of bad) expect(r.code).toBe(2)
      for (const r of bad.slice(0, 4)) expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(bad[0]!.stderr).toContain('--for "15" is not a duration')
      expect(bad[2]!.stderr).toContain('already past')
      expect(where(await row(h, 1))).toBe('needs_input:settled [needs_input]')

      const ok = await cast(h, ['snooze', sid(1), '--until', 'tomorrow 9am', '--json'])

      expect(ok.code).toBe(0)
      const until = Date.parse(json(ok).sessions[0].snoozed_until)
      expect(until).toBeGreaterThan(T0 + MIN)
      expect(until - (T0 + MIN)).toBeLessThanOrEqual(36 * HOUR)
      expect(new Date(until).getMinutes()).toBe(0)
    })

    it('wake moves a snoozed session to Needs Input now, and any other to Needs Input by verdict', async () => {
      writeSession(h, {cwd: proj, n: 1})
      writeSession(h, {cwd: proj, n: 2})
      await cast(h, ['state', '--session', sid(2), '--status', 'done', 'shipped'])
      await cast(h, ['snooze', sid(1), '--for', '2h'])

      const r = await cast(h, ['wake', sid(1), sid(2)], {now: T0 + 2 * MIN})

      expect(r.code).toBe(0)
      expect(where(await row(h, 1, {now: T0 + 2 * MIN}))).toBe('needs_input:snooze_expired [needs_input]')
      expect(where(await row(h, 2, {now: T0 + 2 * MIN}))).toBe('needs_input:user_verdict [needs_input]')
      expect((await row(h, 1, {now: T0 + 2 * MIN}))?.filing).toBeNull()
    })

    it('wake refuses a killed session with exit 5 and wakes nothing', async () => {
      writeSession(h, {cwd: proj, n: 1})
      writeSession(h, {cwd: proj, n: 2})
      await cast(h, ['snooze', sid(1), '--for', '2h'])
      await cast(h, ['kill', sid(2)])

      const r = await cast(h, ['wake', sid(1), sid(2)])

      expect(r.code).toBe(5)
      expect(r.stderr).toContain('is killed')
      expect(where(await row(h, 1))).toBe('dormant:snoozed [snoozed]')
      // Nothing of the refused action was saved: the last action to undo is still the kill.
      const {history} = json(await cast(h, ['undo', '--list', '--json'])) as {history: {verb: string}[]}
      expect(history.map((a) => a.verb)).toEqual(['kill', 'snooze'])
    })
  })

  describe('stash', () => {
    it('takes a session out of the inbox and brings it back by itself on a new question', async () => {
      writeSession(h, {cwd: proj, n: 1})

      await cast(h, ['stash', sid(1)])

      const listing = json(await cast(h, ['sessions', '--json']))
      expect(listing.counts.stashed).toBe(1)
      expect(listing.sessions.map((s: {bucket: string}) => s.bucket)).toEqual(['stashed'])
      appendQuestion(h, {cwd: proj, n: 1}, 'Ship it?', T0 + 2 * MIN)
      const back = await row(h, 1, {now: T0 + 3 * MIN})
      expect(where(back)).toBe('needs_input:question [questions]')
      expect(back?.filing).toBeNull()
    })

    it('comes back when the agent declares blocked; a hidden stash stays out until an ask', async () => {
      writeSession(h, {cwd: proj, n: 1})
      writeSession(h, {cwd: proj, n: 2})
      await cast(h, ['stash', sid(1)])
      await cast(h, ['stash', '--hide', sid(2)])
      expect(json(await cast(h, ['sessions', '--json'])).counts.stashed).toBe(2)

      await cast(h, ['state', '--session', sid(1), '--status', 'blocked', 'need the staging keys'], {now: T0 + 2 * MIN})
      await cast(h, ['state', '--session', sid(2), '--status', 'blocked', 'need the staging keys'], {now: T0 + 2 * MIN})

      expect(where(await row(h, 1, {now: T0 + 3 * MIN}))).toBe('needs_input:declared_blocked [needs_input]')
      const hidden = await row(h, 2, {now: T0 + 3 * MIN})
      expect(hidden?.bucket).toBe('hidden')
      expect(hidden?.filing).toBe('hidden')
      const listed = json(await cast(h, ['sessions', '--json'], {now: T0 + 3 * MIN}))
      expect(listed.sessions.map((s: {native_id: string}) => s.native_id)).toEqual([sid(1)])

      appendQuestion(h, {cwd: proj, n: 2}, 'Rotate the keys?', T0 + 4 * MIN)
      expect(where(await row(h, 2, {now: T0 + 5 * MIN}))).toBe('needs_input:question [questions]')
    })
  })

  it('dismiss: counted, listed only with --all, one gone line; restore brings it back', async () => {
    writeSession(h, {cwd: proj, n: 1})

    await cast(h, ['dismiss', sid(1)])

    const listing = json(await cast(h, ['sessions', '--json']))
    expect(listing.counts.dismissed).toBe(1)
    expect(listing.sessions).toEqual([])
    expect(where(await row(h, 1))).toBe('needs_input:settled [dismissed]')
    expect(log(1)).toEqual(['needs_input:settled [needs_input] new', 'needs_input:settled [dismissed] gone'])

    const r = await cast(h, ['restore', sid(1)])

    expect(r.stdout).toMatch(/restored → needs_input/)
    expect(where(await row(h, 1))).toBe('needs_input:settled [needs_input]')
  })

  it('restore lifts a snooze and a kill: the card comes back', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})
    await cast(h, ['snooze', sid(1), '--for', '3h'])
    await cast(h, ['kill', sid(2)])

    await cast(h, ['restore', sid(1), sid(2)])

    expect(where(await row(h, 1))).toBe('needs_input:settled [needs_input]')
    expect(where(await row(h, 2))).toBe('needs_input:settled [needs_input]')
    expect((await row(h, 1))?.snoozed_until).toBeNull()
  })

  it('pin puts a session on top with its state underneath; unpin takes it back', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})
    await cast(h, ['state', '--session', sid(2), '--status', 'done', 'shipped'])

    await cast(h, ['pin', sid(2)])

    const listing = json(await cast(h, ['sessions', '--json']))
    expect(listing.sessions.map((s: {native_id: string; bucket: string}) => `${s.native_id}:${s.bucket}`)).toEqual([
      `${sid(2)}:pinned`,
      `${sid(1)}:needs_input`,
    ])
    expect(listing.counts).toMatchObject({done: 1, needs_input: 1, pinned: 1})
    expect(listing.sessions[0].state).toBe('done')

    await cast(h, ['unpin', sid(2)])

    expect(where(await row(h, 2))).toBe('done:declared_done [done]')
  })

  it('defer drops a session below the others in its section until its next activity', async () => {
    writeSession(h, {at: T0, cwd: proj, n: 1})
    writeSession(h, {at: T0 + 10_000, cwd: proj, n: 2})
    const order = async (now = T0 + MIN): Promise<string[]> => (await rows(h, {now})).map((r) => r.native_id)
    expect(await order()).toEqual([sid(1), sid(2)])

    await cast(h, ['defer', sid(1)])

    expect(await order()).toEqual([sid(2), sid(1)])
    appendQuestion(h, {cwd: proj, n: 1}, 'And now?', T0 + 2 * MIN)
    expect((await rows(h, {now: T0 + 3 * MIN}))[0]?.native_id).toBe(sid(1))
  })

  it('mark files by verdict (over an open question, until the next activity), lifts a stash, and flags unread', async () => {
    writeSession(h, {cwd: proj, n: 1, question: 'Which DB?'})
    writeSession(h, {cwd: proj, n: 2})
    writeSession(h, {cwd: proj, n: 3})
    await cast(h, ['stash', sid(3)])

    await cast(h, ['mark', 'done', sid(1)])
    await cast(h, ['mark', 'dormant', sid(2)])
    await cast(h, ['mark', 'needs-input', sid(3)])
    await cast(h, ['mark', 'unread', sid(2)])

    expect(where(await row(h, 1))).toBe('done:user_verdict [done]')
    expect(where(await row(h, 2))).toBe('dormant:user_verdict [dormant]')
    expect(where(await row(h, 3))).toBe('needs_input:user_verdict [needs_input]')
    expect(json(await cast(h, ['explain', sid(2), '--json'])).records.unread).toBe(true)
    await cast(h, ['mark', 'read', sid(2)])
    expect(json(await cast(h, ['explain', sid(2), '--json'])).records.unread).toBe(false)

    appendQuestion(h, {cwd: proj, n: 1}, 'Which DB, really?', T0 + 2 * MIN)
    expect(where(await row(h, 1, {now: T0 + 3 * MIN}))).toBe('needs_input:question [questions]')
    expect((await cast(h, ['mark', 'working', sid(1)])).code).toBe(2)
  })

  it('label: one personal label per user, replaced, cleared, filtered, and never seen by a teammate', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})

    await cast(h, ['label', 'fleet', sid(1), sid(2)])
    await cast(h, ['label', 'review', sid(2)])
    await cast(h, ['label', 'theirs', sid(1)], {user: ANA})

    expect((await row(h, 1))?.labels).toEqual(['fleet'])
    expect((await row(h, 2))?.labels).toEqual(['review'])
    expect((await rows(h, {}, ['--label', 'fleet'])).map((r) => r.native_id)).toEqual([sid(1)])
    expect((await rows(h, {user: ANA}, ['--team'])).find((r) => r.native_id === sid(1))?.labels).toEqual(['theirs'])
    expect((await rows(h, {user: ANA}, ['--team'])).find((r) => r.native_id === sid(2))?.labels).toEqual([])

    await cast(h, ['label', '--clear', sid(1)])

    expect((await row(h, 1))?.labels).toEqual([])
    expect((await cast(h, ['label', 'two words', sid(1)])).code).toBe(2)
    expect((await cast(h, ['label', 'x'])).code).toBe(2)
  })

  it('rename sets the title cast shows; --clear goes back to the agent title', async () => {
    writeSession(h, {cwd: proj, n: 1, prompt: 'Fix the parser'})

    await cast(h, ['rename', sid(1), 'Parser:', 'the', 'CRLF', 'bug'])

    expect((await row(h, 1))?.title).toBe('Parser: the CRLF bug')
    expect((await cast(h, ['sessions'])).stdout).toContain('Parser: the CRLF bug')
    await cast(h, ['rename', sid(1), '--clear'])
    expect((await row(h, 1))?.title).toBe('Fix the parser')
    expect((await cast(h, ['rename', sid(1)])).code).toBe(2)
  })

  it('acts on several sessions at once, and on none when one of them does not resolve (exit 3)', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})

    const bad = await cast(h, ['stash', sid(1), 'zzzzzzz'])

    expect(bad.code).toBe(3)
    expect(bad.stderr).toContain('No session matches "zzzzzzz"')
    expect(where(await row(h, 1))).toBe('needs_input:settled [needs_input]')

    const ok = await cast(h, ['stash', sid(1), sid(2), '--json'])

    expect(json(ok).sessions.map((s: {bucket: string}) => s.bucket)).toEqual(['stashed', 'stashed'])
    expect(typeof json(ok).action).toBe('number')
    expect((await cast(h, ['stash'])).code).toBe(2)
  })

  describe('undo', () => {
    it('reverts the last action on all its sessions, one action at a time, and lists the history', async () => {
      writeSession(h, {cwd: proj, n: 1})
      writeSession(h, {cwd: proj, n: 2})
      await cast(h, ['pin', sid(1)])
      await cast(h, ['stash', sid(1), sid(2)])
      await cast(h, ['label', 'fleet', sid(2)])

      const u1 = await cast(h, ['undo'])

      expect(u1.stdout).toContain('undid')
      expect(u1.stdout).toContain('label')
      expect((await row(h, 2))?.labels).toEqual([])
      const u2 = json(await cast(h, ['undo', '--json']))
      expect(u2.undone.verb).toBe('stash')
      expect(u2.undone.sessions.sort()).toEqual(u2.sessions.map((s: {id: string}) => s.id).sort())
      expect(u2.sessions).toHaveLength(2)
      expect(where(await row(h, 1))).toBe('needs_input:settled [pinned]')
      expect(where(await row(h, 2))).toBe('needs_input:settled [needs_input]')

      const list = json(await cast(h, ['undo', '--list', '--json'])).history
      expect(list.map((a: {verb: string; undone_at: string | null}) => `${a.verb}${a.undone_at ? ' (undone)' : ''}`)).toEqual([
        'label (undone)',
        'stash (undone)',
        'pin',
      ])
      expect((await cast(h, ['undo', '--list'])).stdout).toMatch(/stash\s+\S+ \S+ {2}\(undone/)

      await cast(h, ['undo'])
      expect(where(await row(h, 1))).toBe('needs_input:settled [needs_input]')
      const none = await cast(h, ['undo'])
      expect(none.code).toBe(3)
      expect(none.stderr).toContain('Nothing to undo')
    })

    it("undoes only my own actions, not a teammate's", async () => {
      writeSession(h, {cwd: proj, n: 1})
      writeSession(h, {cwd: proj, n: 2})
      await cast(h, ['pin', sid(1)])
      await cast(h, ['pin', sid(2)], {user: ANA})

      await cast(h, ['undo'])

      expect((await row(h, 1))?.pinned).toBe(false)
      expect((await row(h, 2))?.pinned).toBe(true)
      expect(json(await cast(h, ['undo', '--list', '--everyone', '--json'])).history.map((a: {who: string}) => a.who)).toEqual([
        ANA,
        'me@example.com',
      ])
    })

    it('logs exactly one transition per change, for the verb and for its undo', async () => {
      writeSession(h, {cwd: proj, n: 1})
      await cast(h, ['snooze', sid(1), '--for', '1h'])
      await cast(h, ['pin', sid(1)])
      await cast(h, ['undo'])
      await cast(h, ['undo'])

      expect(log(1)).toEqual(['needs_input:settled [needs_input] new', 'dormant:snoozed [snoozed]', 'needs_input:settled [needs_input]'])
    })
  })
})
