/**
 * `cast schedule`: arming, the trigger it gives a settled session, cancelling, and delivery
 * exactly once when several sweeps run at the same moment.
 */
import {execFileSync} from 'node:child_process'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FAKE_CLAUDE, makeProject, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {json, makeHome, runCast, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000e001'
const T = Date.parse('2026-11-29T12:00:00Z')
const at = (ms: number): string => new Date(T + ms).toISOString()
const MIN = 60_000

describe('cast schedule', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    // A finished run of the fake agent: settled, no live process, resumable headless.
    execFileSync(process.execPath, [FAKE_CLAUDE, '--session-id', SID, '-p', 'Watch the nightly build'], {
      cwd: proj,
      env: {...h.env, FAKE_DELAY_MS: '0'},
    })
  })

  afterEach(() => h.cleanup())

  const run = (args: string[], now: number, extra: Record<string, string> = {}) =>
    runCommand(args, {env: {...h.env, CAST_NOW: at(now), ...extra}})
  /** A separate cast process: for sweeps that must really run at the same moment. */
  const runSpawned = (args: string[], now: number) => runCast(args, {env: {...h.env, CAST_NOW: at(now)}})
  const session = async (now: number) => json(await run(['state', 'show', SID, '--json'], now))

  it('arms a recurring schedule: a settled session reads dormant (trigger) until it is cancelled', async () => {
    expect(await session(0)).toMatchObject({reason: 'settled', state: 'needs_input'})

    const s = json(await run(['schedule', SID.slice(0, 6), '--every', '1h', 'Check the nightly build', '--json'], 0))
    const armed = await session(1 * MIN)
    const list = json(await run(['schedule', 'list', '--json'], 1 * MIN))
    const cancel = await run(['schedule', 'cancel', s.id.slice(0, 5)], 2 * MIN)
    const after = await session(3 * MIN)
    const again = await run(['schedule', 'cancel', s.id], 4 * MIN)

    expect(s).toMatchObject({due_at: at(60 * MIN), every_ms: 60 * MIN, message: 'Check the nightly build', status: 'armed'})
    expect(armed).toMatchObject({reason: 'trigger', state: 'dormant'})
    expect(list.schedules.map((x: {id: string}) => x.id)).toEqual([s.id])
    expect(cancel.code).toBe(0)
    expect(after).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(again.code).toBe(5)
    expect(json(await run(['schedule', 'list', '--json'], 5 * MIN)).schedules).toEqual([])
    expect(json(await run(['schedule', 'list', '--all', '--json'], 5 * MIN)).schedules[0].status).toBe('cancelled')
  })

  it('reads times and durations: --at words and ISO, --in; refuses the past, nonsense and too-short intervals', async () => {
    const iso = json(await run(['schedule', SID, '--at', '2026-11-30T08:00:00Z', 'Morning check', '--json'], 0))
    const words = json(await run(['schedule', SID, '--at', 'in 2 hours', 'Later', '--json'], 0))
    const inD = json(await run(['schedule', SID, '--in', '1h30m', 'Soon', '--json'], 0))
    const past = await run(['schedule', SID, '--at', '2026-11-29T11:00:00Z', 'Too late'], 0)
    const nonsense = await run(['schedule', SID, '--in', 'soonish', 'x'], 0)
    const often = await run(['schedule', SID, '--every', '10s', 'x'], 0)
    const when = await run(['schedule', SID, 'no time given'], 0)

    expect(iso.due_at).toBe('2026-11-30T08:00:00.000Z')
    expect(words.due_at).toBe(at(120 * MIN))
    expect(inD.due_at).toBe(at(90 * MIN))
    for (const r of [past, nonsense, often, when]) expect(r.code).toBe(2)
  })

  it('schedules into its own session when an agent gives only the message', async () => {
    const r = json(await run(['schedule', '--in', '30m', 'Re-check the deploy', '--json'], 0, {CAST_SESSION: SID}))
    const outside = await run(['schedule', '--in', '30m', 'Re-check the deploy'], 0)

    expect(r.session_id).toBe(json(await run(['state', 'show', SID, '--json'], 0)).session)
    expect(outside.code).toBe(3)
    expect(outside.stderr).toContain('--session')
  })

  it('delivers a due message exactly once when several sweeps run at the same moment', async () => {
    const s = json(await run(['schedule', SID, '--in', '5m', 'Nightly build: report', '--json'], 0))

    const early = json(await run(['schedule', 'sweep', '--json'], 4 * MIN))
    // cast snooze sweep (cron), cast daemon --once and cast schedule sweep all deliver through the same claim.
    const sweeps = await Promise.all([
      ...Array.from({length: 3}, () => runSpawned(['schedule', 'sweep', '--json'], 6 * MIN)),
      runSpawned(['snooze', 'sweep', '--json'], 6 * MIN),
      runSpawned(['snooze', 'sweep', '--json'], 6 * MIN),
      runSpawned(['daemon', '--once', '--json'], 6 * MIN),
    ])

    expect(early.delivered).toEqual([])
    for (const r of sweeps) expect(r.code, r.stderr).toBe(0)
    const reports = sweeps.slice(0, 3).flatMap((r) => json(r).delivered)
    expect(reports.length).toBeLessThanOrEqual(1)
    await waitFor(() => userTexts(h.home, proj, SID).includes('Nightly build: report') || null)
    // Let any straggler finish, then count.
    await waitFor(async () => json(await run(['state', 'show', SID, '--json'], 7 * MIN)).reason === 'settled' || null)
    expect(userTexts(h.home, proj, SID).filter((t) => t === 'Nightly build: report')).toHaveLength(1)
    const after = json(await run(['schedule', 'list', '--all', '--json'], 7 * MIN)).schedules[0]
    expect(after).toMatchObject({deliveries: 1, id: s.id, status: 'delivered'})
  })

  it('re-arms a recurring schedule at its next occurrence after each delivery', async () => {
    const s = json(await run(['schedule', SID, '--every', '1h', 'Hourly check', '--json'], 0))

    const first = json(await run(['schedule', 'sweep', '--json'], 61 * MIN)).delivered
    const none = json(await run(['schedule', 'sweep', '--json'], 62 * MIN)).delivered

    expect(first).toEqual([expect.objectContaining({id: s.id, next_due_at: at(120 * MIN), ok: true})])
    expect(none).toEqual([])
    const row = json(await run(['schedule', 'list', '--json'], 62 * MIN)).schedules[0]
    expect(row).toMatchObject({deliveries: 1, due_at: at(120 * MIN), status: 'armed'})
  })

  it('records a delivery that fails on the schedule', async () => {
    writeFakeConfig(h.castHome, {agents: {claude: {resume: ['/nonexistent/claude-bin', '--resume', '{id}', '-p', '{prompt}']}}})
    const s = json(await run(['schedule', SID, '--in', '1m', 'Ping', '--json'], 0))

    const raw = await run(['schedule', 'sweep', '--json'], 2 * MIN)
    const r = json(raw)

    expect(raw.code).toBe(1)
    expect(r.delivered[0]).toMatchObject({id: s.id, ok: false})
    expect(r.delivered[0].error).toContain('/nonexistent/claude-bin')
    expect(json(await run(['schedule', 'list', '--all', '--json'], 3 * MIN)).schedules[0]).toMatchObject({status: 'failed'})
  })

  it('cast snooze sweep (cron) says on stderr that a due message failed and exits 1, never "Nothing came due."', async () => {
    writeFakeConfig(h.castHome, {agents: {claude: {resume: ['/nonexistent/claude-bin', '--resume', '{id}', '-p', '{prompt}']}}})
    const s = json(await run(['schedule', SID, '--in', '1m', 'Ping', '--json'], 0))

    const r = await run(['snooze', 'sweep'], 2 * MIN)
    const again = await run(['snooze', 'sweep'], 3 * MIN)

    expect(r.code).toBe(1)
    expect(r.stdout).not.toContain('Nothing came due')
    expect(r.stderr).toMatch(new RegExp(`scheduled message ${s.id} to \\w{7} failed`))
    expect(r.stderr).toContain('/nonexistent/claude-bin')
    // Recorded as failed: the next sweep has nothing due.
    expect(again.code).toBe(0)
    expect(again.stdout).toContain('Nothing came due.')
  })

  it('exits 3 for an unknown schedule or session', async () => {
    const cancel = await run(['schedule', 'cancel', 'szzzzzz'], 0)
    const session = await run(['schedule', 'zzzzzzz', '--in', '1h', 'x'], 0)

    expect(cancel.code).toBe(3)
    expect(session.code).toBe(3)
  })
})
