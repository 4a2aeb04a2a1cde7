/**
 * `cast presence` and what it does to `cast decide --wait`, with the clock moved by CAST_NOW.
 */
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, waitFor} from '../fakes/agents.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, startCast, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000d001'
const T = Date.parse('2026-11-29T12:00:00Z')
const at = (ms: number): string => new Date(T + ms).toISOString()
const MIN = 60_000

describe('cast presence', () => {
  let h: TempHome
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFile(
      claudeTranscriptPath(h.home, proj, SID),
      claudeLines({at: new Date(T - 10 * MIN), cwd: proj, prompt: 'Refactor the store', sessionId: SID}),
    )
  })

  afterEach(() => h.cleanup())

  const run = (args: string[], now: number, extra: Record<string, string> = {}) =>
    runCommand(args, {env: {...h.env, CAST_NOW: at(now), ...extra}})
  const decideWait = (now: number, extra: string[] = []) =>
    run(['decide', 'Rename the module?', '-o', 'Keep :: nothing changes', '-o', 'Rename :: 40 files', ...extra, '--wait', '--json'], now, {
      CAST_SESSION: SID,
    })

  it('is online by default, away for a while with --for, then online again', async () => {
    const before = json(await run(['presence', '--json'], 0))
    const set = json(await run(['presence', 'away', '--for', '1h', '--json'], 0))
    const during = json(await run(['presence', '--json'], 59 * MIN))
    const after = json(await run(['presence', '--json'], 61 * MIN))

    expect(before).toMatchObject({presence: 'online', wait_budget_ms: null, who: 'me@example.com'})
    expect(set).toMatchObject({presence: 'away', until: at(60 * MIN), wait_budget_ms: 0})
    expect(set.instructions).toContain('Never block')
    expect(during.presence).toBe('away')
    expect(after).toMatchObject({presence: 'online', until: null})
  })

  it('while away, decide --wait takes the recommended option at once and leaves a note in the inbox', async () => {
    await run(['presence', 'away', '--for', '2h'], 0)

    const r = await decideWait(30 * MIN, ['--recommend', '2'])

    expect(r.code).toBe(0)
    const card = json(r)
    expect(card).toMatchObject({answer: 2, answer_label: 'Rename', answered_at: null, auto: true})
    expect(card.answer_note).toBe('me@example.com was away; took 2. Rename (the recommended option)')
    const inbox = await run(['sessions'], 31 * MIN)
    expect(inbox.stdout).toContain('auto-decided: me@example.com was away; took 2. Rename (the recommended option)')
    const list = json(await run(['decide', 'list', '--json'], 31 * MIN))
    expect(list.cards.map((c: {id: string}) => c.id)).toEqual([card.id])
  })

  it('takes the first option when none is recommended, and the person can then confirm it', async () => {
    await run(['presence', 'away'], 0)

    const card = json(await decideWait(5 * MIN))
    const confirm = json(await run(['decide', 'answer', card.id, '1', '--json'], 90 * MIN))

    expect(card).toMatchObject({answer: 1, answer_label: 'Keep', auto: true})
    expect(card.answer_note).toContain('the first')
    expect(confirm).toMatchObject({delivered: null, delivery_error: null})
    expect(confirm.card).toMatchObject({answer: 1, answered_by: 'me@example.com', auto: true})
    expect(json(await run(['decide', 'list', '--json'], 91 * MIN)).cards).toEqual([])
  })

  it('going away while an agent waits ends the wait with the recommended option', async () => {
    const waiter = startCast(['decide', 'Merge now?', '-o', 'Yes', '-o', 'After review', '--recommend', '2', '--wait'], {
      ...h.env,
      CAST_SESSION: SID,
    })
    const exited = new Promise((resolve) => waiter.child.once('exit', resolve))
    await waitFor(async () => json(await runCommand(['decide', 'list', '--json'], {env: h.env})).cards[0])

    await runCommand(['presence', 'away'], {env: h.env})

    expect(await waiter.nextLine()).toBe('After review')
    expect(await exited).toBe(0)
  })

  it('blocks again once the away presence has lapsed', async () => {
    await run(['presence', 'away', '--for', '1h'], 0)

    const r = await run(['decide', 'Ship?', '-o', 'Yes', '-o', 'No', '--wait', '--timeout', '1s'], 2 * 60 * MIN, {CAST_SESSION: SID})

    expect(r.code).toBe(124)
  })

  it('honours a custom presence from the config: its wait budget and instructions', async () => {
    writeFile(
      path.join(h.castHome, 'config.json'),
      JSON.stringify({
        presences: [{instructions: 'Batch your questions; I read them at the top of the hour.', name: 'focus', wait_budget: '3s'}],
      }),
    )
    await run(['presence', 'focus'], 0)
    const shown = json(await run(['presence', '--json'], 1 * MIN))

    // A wait shorter than the budget times out undecided; a longer one is decided when the budget runs out.
    const early = await run(['decide', 'Other?', '-o', 'A', '-o', 'B', '--wait', '--timeout', '1s'], 10 * MIN, {CAST_SESSION: SID})
    const late = json(await decideWait(20 * MIN, ['--recommend', '1', '--timeout', '1m']))

    expect(shown).toMatchObject({
      instructions: 'Batch your questions; I read them at the top of the hour.',
      presence: 'focus',
      wait_budget_ms: 3000,
    })
    expect(early.code).toBe(124)
    expect(late).toMatchObject({answer: 1, answer_label: 'Keep', auto: true})
    expect(late.answer_note).toBe('me@example.com was focus; took 1. Keep (the recommended option)')
  })

  it('refuses an unknown presence and --for on online with exit 2', async () => {
    const unknown = await run(['presence', 'napping'], 0)
    const online = await run(['presence', 'online', '--for', '1h'], 0)

    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('online, away')
    expect(online.code).toBe(2)
  })
})
