/**
 * Issue 13 point 7: one time style. People read local time (`14:05` today, else
 * `2026-11-29 14:05`, src/lib/base/time-format.ts over views.ts' localTime); JSON keeps ISO 8601 UTC.
 * The commands run on the demo store in Asia/Kolkata (UTC+05:30, so a UTC time printed by mistake
 * cannot pass for local) on a fixed clock.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {humanTime} from '../../src/lib/base/time-format.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const TZ = 'Asia/Kolkata'
const NOW = Date.parse('2026-12-01T10:00:00.000Z') // 15:30 in Kolkata
const MIN = 60_000
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/

describe('humanTime (table, in Asia/Kolkata)', () => {
  const saved = process.env.TZ
  beforeAll(() => {
    process.env.TZ = TZ
  })
  afterAll(() => {
    if (saved === undefined) delete process.env.TZ
    else process.env.TZ = saved
  })

  it.each([
    ['epoch ms today: the clock only', NOW + 2 * 60 * MIN, '17:30'],
    ['an ISO string (a JSON field) today', '2026-12-01T12:00:00.000Z', '17:30'],
    ['another day: the date too', '2026-12-02T03:30:00.000Z', '2026-12-02 09:00'],
    ['the same UTC day but the next local day', '2026-12-01T20:00:00.000Z', '2026-12-02 01:30'],
    ['an earlier day', NOW - 2 * 86_400_000, '2026-11-29 15:30'],
    ['no time', null, 'never'],
    ['not a time: as given', 'soon', 'soon'],
  ])('%s', (_what, t, want) => {
    expect(humanTime(t, NOW)).toBe(want)
  })

  it('no time, with what to say instead', () => {
    expect(humanTime(undefined, NOW, 'none')).toBe('none')
  })
})

describe('human output prints local time, JSON ISO UTC', () => {
  let h: TempHome
  let demo: string
  let snapshot: string
  let env: Record<string, string>

  beforeAll(async () => {
    h = makeHome()
    const built = await runCast(['demo', '--keep', '--json'], {env: {...h.env, CAST_NOW: String(NOW), TMPDIR: h.dir}, timeout: 120_000})
    expect(built.code, built.stderr).toBe(0)
    const base = json<{cast_home: string; home: string}>(built)
    demo = path.dirname(base.cast_home)
    snapshot = path.join(h.dir, 'snapshot')
    fs.cpSync(demo, snapshot, {recursive: true})
    env = {...h.env, CAST_HOME: base.cast_home, CAST_NOW: String(NOW), HOME: base.home, TZ}
  }, 180_000)

  afterAll(() => h?.cleanup())

  // In the test process (test/helpers/run-command.ts): what is under test is the time each command
  // prints, not the process around it (cli.test.ts and help-examples.test.ts spawn the CLI).
  const cast = async (args: string[]): Promise<{code: number; stdout: string; stderr: string}> => runCommand(args, {env})

  // [what, commands run first, the command, what its human output must show (stdout, or stderr on a refusal)]
  const rows: Array<[string, string[][], string[], RegExp]> = [
    ['snooze --for', [], ['snooze', 'grjaguv', '--for', '2h'], /snoozed until 17:30/],
    ['snooze --until another day', [], ['snooze', 'grjaguv', '--until', '2026-12-02T03:00:00Z'], /snoozed until 2026-12-02 08:30/],
    ['snooze --until a past time (the refusal)', [], ['snooze', 'grjaguv', '--until', '2026-12-01T09:00:00Z'], /is 14:30, already past/],
    ['schedule', [], ['schedule', 'kdsmarj', '--in', '2h', 'Check CI'], /into kdsmarj at 17:30 \(in 2/],
    [
      'schedule --at a past time (the refusal)',
      [],
      ['schedule', 'kdsmarj', '--at', '2026-12-01T09:00:00Z', 'Check CI'],
      /is 14:30, already past/,
    ],
    ['schedule list', [['schedule', 'kdsmarj', '--in', '90m', 'Check CI']], ['schedule', 'list'], /17:00/],
    ['undo', [['pin', 'ckq7fgv']], ['undo'], /undid #\d+ pin \(15:30\)/],
    ['undo --list', [['pin', 'ckq7fgv'], ['undo']], ['undo', '--list'], /#\d+ +15:30 +pin .*\(undone 15:30\)/],
    ['presence', [], ['presence', 'away', '--for', '2h'], /away until 17:30/],
    ['owners', [], ['owners', 'kdsmarj'], /owner me@example\.com {2}\(added by me@example\.com, 14:50\)/],
    ['state show', [], ['state', 'show', 'kdsmarj'], /^blocked at 14:50 /m],
    ['explain', [], ['explain', 'kdsmarj'], /last_activity_at +\d\d:\d\d$/m],
  ]

  it.each(rows)('%s', async (_what, before, args, want) => {
    fs.rmSync(demo, {force: true, recursive: true})
    fs.cpSync(snapshot, demo, {recursive: true})
    for (const b of before) expect((await cast(b)).code, b.join(' ')).toBe(0)
    const r = await cast(args)
    const out = r.code === 0 ? r.stdout : r.stderr
    expect(out, `${args.join(' ')} → exit ${r.code}\n${r.stdout}\n${r.stderr}`).toMatch(want)
    // (what the user typed is echoed in quotes, as typed)
    expect(out.replaceAll(/"[^"]*"/g, '""')).not.toMatch(ISO)
  })

  it('the same facts stay ISO 8601 UTC under --json', async () => {
    fs.rmSync(demo, {force: true, recursive: true})
    fs.cpSync(snapshot, demo, {recursive: true})
    const owners = json(await cast(['owners', 'kdsmarj', '--json']))
    expect(owners.owners[0].added_at).toBe('2026-12-01T09:20:00.000Z')
    const s = json(await cast(['schedule', 'kdsmarj', '--in', '2h', 'Check CI', '--json']))
    expect(s.due_at).toBe('2026-12-01T12:00:00.000Z')
    const list = json(await cast(['schedule', 'list', '--json']))
    expect(list.schedules[0].due_at).toBe('2026-12-01T12:00:00.000Z')
    const p = json(await cast(['presence', 'away', '--for', '2h', '--json']))
    expect(p.until).toBe('2026-12-01T12:00:00.000Z')
    const e = json(await cast(['explain', 'kdsmarj', '--json']))
    expect(e.facts.find((f: {fact: string}) => f.fact === 'last_activity_at').value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })
})
