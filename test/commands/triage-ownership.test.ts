/**
 * Ownership and the team feed with two identities sharing one store (DESIGN §3.7, §6.2; seed
 * 000's own/disown/owners, team feed vs. personal inbox).
 */
import fs from 'node:fs'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {Store} from '../../src/core/store/store.js'
import {json, makeHome, type RunResult, startCast, type TempHome} from '../helpers/cli.js'
import {ANA, cast, HOUR, ME, MIN, row, rows, sid, T0, where, writeSession} from './triage-helpers.js'

const DAY = 24 * HOUR

describe('ownership', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
  })

  afterEach(() => h.cleanup())

  it('a handoff leaves my inbox, question and all, and lands in the owner’s, marked with who runs it', async () => {
    writeSession(h, {cwd: proj, n: 1, question: 'Stripe test keys or a mock?'})
    expect(where(await row(h, 1))).toBe('needs_input:question [questions]')

    const r = await cast(h, ['own', sid(1), ANA])

    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`owned by ${ANA}`)
    const mine = json(await cast(h, ['sessions', '--all', '--json']))
    expect(mine.sessions).toEqual([])
    expect(mine.counts.questions).toBe(0)
    expect(mine.counts.needs_input).toBe(0)
    const hers = await row(h, 1, {user: ANA})
    expect(where(hers)).toBe('needs_input:question [questions]')
    expect(hers?.owners).toEqual([ANA])
    expect(hers?.runner).toBe(ME)
    const text = (await cast(h, ['sessions'], {user: ANA})).stdout
    expect(text).toContain('asks: Stripe test keys or a mock?')
    expect(text).toContain(`run by ${ME}`)
    // Naming its id still reads it.
    expect(json(await cast(h, ['explain', sid(1), '--json'])).state).toBe('needs_input')
    const owners = json(await cast(h, ['owners', sid(1), '--json']))
    expect(owners).toMatchObject({in_my_inbox: false, owners: [{added_by: ME, who: ANA}], runner: ME})
  })

  it('a handoff clears a stash, a snooze and a dismiss, but leaves a kill alone', async () => {
    for (const n of [1, 2, 3, 4]) writeSession(h, {cwd: proj, n})
    await cast(h, ['stash', sid(1)])
    await cast(h, ['snooze', sid(2), '--for', '4h'])
    await cast(h, ['dismiss', sid(3)])
    await cast(h, ['kill', sid(4)])

    for (const n of [1, 2, 3, 4]) expect((await cast(h, ['own', sid(n), ANA])).code).toBe(0)

    const hers = await rows(h, {user: ANA})
    const of = (n: number): string => where(hers.find((r) => r.native_id === sid(n)))
    expect(of(1)).toBe('needs_input:settled [needs_input]')
    expect(of(2)).toBe('needs_input:settled [needs_input]')
    expect(of(3)).toBe('needs_input:settled [needs_input]')
    expect(of(4)).toBe('idle:killed [killed]')
    expect(hers.find((r) => r.native_id === sid(2))?.snoozed_until).toBeNull()
  })

  it('an owned session stays in the owner’s inbox with no recency limit; an unowned one ages out', async () => {
    writeSession(h, {at: T0 - 30 * DAY, cwd: proj, n: 1})
    writeSession(h, {at: T0 - 30 * DAY, cwd: proj, n: 2})
    const inbox = async (user = ME): Promise<string[]> =>
      json(await cast(h, ['sessions', '--json'], {user})).sessions.map((s: {native_id: string}) => s.native_id)
    expect(await inbox()).toEqual([])
    expect((await rows(h)).map((r) => r.native_id).sort()).toEqual([sid(1), sid(2)])

    await cast(h, ['own', sid(1)])
    await cast(h, ['own', sid(2), ANA])

    expect(await inbox()).toEqual([sid(1)])
    expect(await inbox(ANA)).toEqual([sid(2)])
  })

  it('disown removes me, someone, or everyone; a non-owner is exit 3; undo puts the owners back', async () => {
    writeSession(h, {cwd: proj, n: 1})
    await cast(h, ['own', sid(1)])
    await cast(h, ['own', sid(1), ANA])
    expect((await row(h, 1))?.owners.sort()).toEqual([ANA, ME])

    await cast(h, ['disown', sid(1)])

    expect(await row(h, 1)).toBeUndefined()
    expect((await row(h, 1, {user: ANA}))?.owners).toEqual([ANA])
    const not = await cast(h, ['disown', sid(1), 'bob@example.com'])
    expect(not.code).toBe(3)
    expect(not.stderr).toContain(`bob@example.com does not own`)
    expect((await cast(h, ['disown', sid(1), ANA, '--all'])).code).toBe(2)

    await cast(h, ['disown', sid(1), '--all'], {user: ANA})

    expect((await row(h, 1))?.owners).toEqual([])
    await cast(h, ['undo'], {user: ANA})
    expect((await row(h, 1, {user: ANA}))?.owners).toEqual([ANA])
    await cast(h, ['undo'])
    expect((await row(h, 1))?.owners.sort()).toEqual([ANA, ME])
    const text = (await cast(h, ['owners', sid(1)])).stdout
    expect(text).toContain(`owner ${ME}  (added by ${ME}`)
    expect(text).toContain(`owner ${ANA}  (added by ${ME}`)
    expect(text).toContain('in your inbox')
  })

  it('checks WHO against the team when the config names one, by id or name; otherwise its shape', async () => {
    writeSession(h, {cwd: proj, n: 1})
    expect((await cast(h, ['own', sid(1), 'not an identity'])).code).toBe(2)
    fs.mkdirSync(h.castHome, {recursive: true})
    const file = path.join(h.castHome, 'config.json')
    fs.writeFileSync(file, JSON.stringify({team: [ME, {id: ANA, name: 'Ana'}]}))

    const bad = await cast(h, ['own', sid(1), 'bob@example.com'])
    const byName = await cast(h, ['own', sid(1), 'ana'])

    expect(bad.code).toBe(2)
    expect(bad.stderr.trim()).toBe(`cast: "bob@example.com" is not on the team: key "team" in ${file} lists ${ME}, ${ANA} (Ana).`)
    expect(byName.code).toBe(0)
    expect((await row(h, 1, {user: ANA}))?.owners).toEqual([ANA])
    expect((await cast(h, ['feed', '-m', 'bob@example.com'], {cwd: proj})).code).toBe(2)
  })

  it('cast sessions --team lists the team’s sessions, marks the ones owned by others, and streams their transitions', async () => {
    writeSession(h, {cwd: proj, n: 1})
    writeSession(h, {cwd: proj, n: 2})
    await cast(h, ['own', sid(2), ANA])
    const store = new Store(h.castHome)
    const seq = store.lastSeq()
    store.close()
    const team = startCast(['sessions', '-w', '--json', '--team', '--since', String(seq)], {...h.env, CAST_NOW: String(T0 + MIN)})
    const mine = startCast(['sessions', '-w', '--json', '--since', String(seq)], {...h.env, CAST_NOW: String(T0 + MIN)})

    try {
      await cast(h, ['stash', sid(2)], {user: ANA})
      await cast(h, ['stash', sid(1)])

      const first = JSON.parse(await team.nextLine(15_000))
      const second = JSON.parse(await team.nextLine(15_000))
      expect([first.session_id, second.session_id]).toEqual([sid(2), sid(1)])
      expect(second.bucket).toBe('stashed')
      const only = JSON.parse(await mine.nextLine(15_000))
      expect(only.session_id).toBe(sid(1))
    } finally {
      await team.stop()
      await mine.stop()
    }

    expect((await rows(h, {}, ['--team'])).map((r) => r.native_id).sort()).toEqual([sid(1), sid(2)])
    const text = (await cast(h, ['sessions', '--team', '--all'])).stdout
    expect(text).toContain('cast sessions · team')
    expect(text).toContain('(owned by others: not in your inbox)')
  })
})

describe('cast feed', () => {
  let h: TempHome
  let proj: string

  beforeEach(async () => {
    h = makeHome()
    proj = path.join(h.dir, 'proj')
    for (const d of ['proj/api', 'proj/web', 'other']) fs.mkdirSync(path.join(h.dir, d), {recursive: true})
    writeSession(h, {at: T0, cwd: path.join(proj, 'api'), n: 1, prompt: 'API rate limits'})
    await cast(h, ['sessions'])
    // Ana's machine sees session 2 first: she runs it.
    writeSession(h, {at: T0 + 10_000, cwd: path.join(proj, 'web'), n: 2, prompt: 'Checkout page', question: 'Keep the old flow?'})
    await cast(h, ['sessions'], {user: ANA})
    writeSession(h, {at: T0 + 20_000, cwd: path.join(h.dir, 'other'), n: 3, prompt: 'Elsewhere'})
    writeSession(h, {at: T0 - 30 * DAY, cwd: proj, n: 4, prompt: 'Long ago'})
    await cast(h, ['sessions'])
  })

  afterEach(() => h.cleanup())

  const ids = (r: RunResult): string[] => json(r).sessions.map((s: {native_id: string}) => s.native_id)

  it("lists everyone's recent sessions at or under this directory, newest first, as a table", async () => {
    const r = await cast(h, ['feed'], {cwd: proj})

    expect(r.code).toBe(0)
    const lines = r.stdout.split('\n')
    expect(lines[0]).toBe(`cast feed · ${proj} · 2 sessions`)
    expect(r.stdout).toMatch(/│ ID\s+│ STATE\s+│ TITLE\s+│ WHO\s+│ ACTIVE\s+│ AGENT\s+│/)
    const body = lines.filter((l) => /needs_input:/.test(l))
    expect(body[0]).toMatch(/needs_input:question\s+│ Checkout page\s+│ ana@example\.com/)
    expect(body[1]).toMatch(/needs_input:settled\s+│ API rate limits\s+│ me@example\.com/)
    expect(ids(await cast(h, ['feed', '--json'], {cwd: path.join(proj, 'api')}))).toEqual([sid(1)])
  })

  it('-g covers every directory; --mine, -m, --state and --label narrow it; --json carries who', async () => {
    expect(ids(await cast(h, ['feed', '-g', '--json'], {cwd: proj}))).toEqual([sid(3), sid(2), sid(1)])
    expect(ids(await cast(h, ['feed', '--mine', '--json'], {cwd: proj}))).toEqual([sid(1)])
    expect(ids(await cast(h, ['feed', '-m', ANA, '--json'], {cwd: proj}))).toEqual([sid(2)])
    expect(ids(await cast(h, ['feed', '--mine', '--json'], {cwd: proj, user: ANA}))).toEqual([sid(2)])
    expect(ids(await cast(h, ['feed', '-g', '--state', 'needs_input', '--json'], {cwd: proj}))).toEqual([sid(3), sid(2), sid(1)])
    await cast(h, ['mark', 'done', sid(3)])
    expect(ids(await cast(h, ['feed', '-g', '--state', 'done', '--json'], {cwd: proj}))).toEqual([sid(3)])
    await cast(h, ['label', 'fleet', sid(2)])
    expect(ids(await cast(h, ['feed', '--label', 'fleet', '--json'], {cwd: proj}))).toEqual([sid(2)])
    expect(ids(await cast(h, ['feed', '--label', 'fleet', '--json'], {cwd: proj, user: ANA}))).toEqual([])

    await cast(h, ['own', sid(1), ANA])

    const feed = json(await cast(h, ['feed', '--json'], {cwd: proj}))
    expect(feed.cwd).toBe(proj)
    expect(feed.sessions.find((s: {native_id: string}) => s.native_id === sid(1)).who).toEqual([ANA])
    expect(ids(await cast(h, ['feed', '-m', ANA, '--json'], {cwd: proj}))).toEqual([sid(2), sid(1)])
  })

  it('is read-only: it changes no record and says so when nothing is recent', async () => {
    const before = (await rows(h, {}, ['--team'])).map(where)

    const empty = path.join(h.dir, 'empty')
    fs.mkdirSync(empty)
    const r = await cast(h, ['feed'], {cwd: empty})

    expect(r.stdout).toContain('No recent sessions in')
    expect((await rows(h, {}, ['--team'])).map(where)).toEqual(before)
  })
})
