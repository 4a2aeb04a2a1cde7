/**
 * `cast decide`: cards, Questions, answers from another process, delivery as the next turn.
 */
import {execFileSync} from 'node:child_process'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {FAKE_CLAUDE, makeProject, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, startCast, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000c001'
const OTHER = '5e1f0000-0000-4000-8000-00000000c002'

describe('cast decide', () => {
  let h: TempHome
  let proj: string
  let agent: Record<string, string>

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    // A finished run of the fake agent: a real transcript, no live process (resumable headless).
    execFileSync(process.execPath, [FAKE_CLAUDE, '--session-id', SID, '-p', 'Design the events table'], {
      cwd: proj,
      env: {...h.env, FAKE_DELAY_MS: '0'},
    })
    writeFile(
      claudeTranscriptPath(h.home, proj, OTHER),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: proj, prompt: 'Other work', sessionId: OTHER}),
    )
    agent = {...h.env, CAST_SESSION: SID}
  })

  afterEach(() => h.cleanup())

  const ask = (extra: string[] = [], env = agent) =>
    runCommand(
      [
        'decide',
        'Which schema for events?',
        '--option',
        'Wide table :: one migration, fast reads',
        '--option',
        'EAV :: flexible, slower reports',
        ...extra,
      ],
      {env},
    )

  it('posts a card that puts the session in Questions, and decide list shows it', async () => {
    const r = await ask(['--recommend', '1', '--why', 'Reports are the hot path', '--json'])

    expect(r.code).toBe(0)
    const card = json(r)
    expect(card).toMatchObject({
      answer: null,
      auto: false,
      question: 'Which schema for events?',
      recommend: 1,
      why: 'Reports are the hot path',
    })
    expect(card.options).toEqual([
      {effect: 'one migration, fast reads', label: 'Wide table', n: 1},
      {effect: 'flexible, slower reports', label: 'EAV', n: 2},
    ])
    const listing = json(await runCommand(['sessions', '--json'], {env: h.env}))
    const row = listing.sessions.find((s: {native_id: string}) => s.native_id === SID)
    expect(row.bucket).toBe('questions')
    expect(row.decision.id).toBe(card.id)
    expect(listing.counts.questions).toBe(1)
    const list = await runCommand(['decide', 'list'], {env: h.env})
    expect(list.stdout).toContain(card.id)
    expect(list.stdout).toContain('Wide table*')
  })

  it('lists open cards oldest first', async () => {
    const first = json(await ask(['--json'], {...h.env, CAST_NOW: '2026-11-29T10:00:00Z', CAST_SESSION: SID}))
    const second = json(
      await runCommand(['decide', 'Keep the old API?', '-o', 'Yes', '-o', 'No', '--json'], {
        env: {...h.env, CAST_NOW: '2026-11-29T11:00:00Z', CAST_SESSION: OTHER},
      }),
    )
    const third = json(await ask(['--json'], {...h.env, CAST_NOW: '2026-11-29T09:00:00Z', CAST_SESSION: OTHER}))

    const list = json(await runCommand(['decide', 'list', '--json'], {env: h.env}))

    expect(list.cards.map((c: {id: string}) => c.id)).toEqual([third.id, first.id, second.id])
  })

  it('validates options: 2 to 9, labelled, distinct, --recommend in range', async () => {
    const one = await runCommand(['decide', 'Q?', '-o', 'Only'], {env: agent})
    const ten = await runCommand(['decide', 'Q?', ...Array.from({length: 10}, (_, i) => ['-o', `o${i}`]).flat()], {env: agent})
    const unlabelled = await runCommand(['decide', 'Q?', '-o', ':: costs', '-o', 'B'], {env: agent})
    const same = await runCommand(['decide', 'Q?', '-o', 'A', '-o', 'a :: again'], {env: agent})
    const recommend = await ask(['--recommend', '3'])

    for (const r of [one, ten, unlabelled, same, recommend]) expect(r.code).toBe(2)
    expect(json(await runCommand(['decide', 'list', '--json'], {env: h.env})).cards).toEqual([])
  })

  it('--wait blocks until another process answers, then prints the chosen label', async () => {
    const waiter = startCast(
      ['decide', 'Deploy now?', '-o', 'Yes :: 10 min downtime', '-o', 'Tonight :: no downtime', '--recommend', '2', '--wait'],
      agent,
    )
    const exited = new Promise((resolve) => waiter.child.once('exit', resolve))
    const card = await waitFor(async () => json(await runCommand(['decide', 'list', '--json'], {env: h.env})).cards[0])

    const answer = await runCommand(['decide', 'answer', card.id.slice(0, 5), 'yes', '--note', 'ship it', '--json'], {env: h.env})
    const line = await waiter.nextLine()
    const code = await exited

    expect(answer.code).toBe(0)
    expect(json(answer)).toMatchObject({delivered: null, waiting: true})
    expect(line).toBe('Yes')
    expect(code).toBe(0)
    // The waiting agent got it: nothing was typed into the session.
    expect(userTexts(h.home, proj, SID)).toEqual(['Design the events table'])
    const listing = json(await runCommand(['sessions', '--json'], {env: h.env}))
    expect(listing.sessions.find((s: {native_id: string}) => s.native_id === SID).bucket).not.toBe('questions')
  })

  it('--wait --json prints the whole answer', async () => {
    const waiter = startCast(['decide', 'Deploy now?', '-o', 'Yes', '-o', 'Tonight', '--wait', '--json'], agent)
    const exited = new Promise((resolve) => waiter.child.once('exit', resolve))
    const card = await waitFor(async () => json(await runCommand(['decide', 'list', '--json'], {env: h.env})).cards[0])

    await runCommand(['decide', 'answer', card.id, '2'], {env: h.env})
    await exited

    expect(JSON.parse(waiter.lines.join('\n'))).toMatchObject({
      answer: 2,
      answer_label: 'Tonight',
      answered_by: 'me@example.com',
      auto: false,
      id: card.id,
    })
  })

  it('--wait --timeout exits 124 and leaves the card open', async () => {
    const r = await ask(['--wait', '--timeout', '1s'])

    expect(r.code).toBe(124)
    expect(r.stderr).toContain('stays open')
    expect(json(await runCommand(['decide', 'list', '--json'], {env: h.env})).cards).toHaveLength(1)
  })

  it("delivers the answer as the session's next turn when nobody waits for it", async () => {
    const card = json(await ask(['--json']))

    const r = await runCommand(['decide', 'answer', card.id, 'EAV', '--note', 'reports can wait', '--json'], {env: h.env})

    expect(r.code).toBe(0)
    expect(json(r).delivered.via).toContain('headless claude_code')
    const expected =
      'Answer to your question "Which schema for events?": 2. EAV (flexible, slower reports). Note from me@example.com: reports can wait'
    await waitFor(
      () => userTexts(h.home, proj, SID).includes(expected) || null,
      20_000,
      () => JSON.stringify(userTexts(h.home, proj, SID)),
    )
  })

  it('exits non-zero when the answer is recorded but reaches nobody (a script can tell)', async () => {
    const card = json(await ask(['--json']))
    // The agent's resume command cannot start: the headless delivery fails.
    writeFakeConfig(h.castHome, {agents: {claude: {resume: ['/nonexistent/claude', '--resume', '{id}', '-p', '--', '{prompt}']}}})

    const r = await runCommand(['decide', 'answer', card.id, '2', '--json'], {env: h.env})

    expect(r.code).not.toBe(0)
    expect([1, 5]).toContain(r.code)
    expect(json(r).delivered).toBeNull()
    expect(json(r).delivery_error).toBeTruthy()
    expect(r.stderr).toContain('The answer is recorded, but it did not reach session')
    // The answer stands: a second one is refused.
    expect((await runCommand(['decide', 'answer', card.id, '1'], {env: h.env})).code).toBe(5)
  })

  it('show prints a card; unknown cards exit 3; a second answer exits 5; a bad choice exits 2', async () => {
    const card = json(await ask(['--recommend', '1', '--json']))

    const show = await runCommand(['decide', 'show', card.id], {env: h.env})
    const missing = await runCommand(['decide', 'show', 'dzzzzzz'], {env: h.env})
    const bad = await runCommand(['decide', 'answer', card.id, '7'], {env: h.env})
    await runCommand(['decide', 'answer', card.id, '1'], {env: h.env})
    const again = await runCommand(['decide', 'answer', card.id, '2'], {env: h.env})

    expect(show.stdout).toContain('1. Wide table :: one migration, fast reads (recommended)')
    expect(missing.code).toBe(3)
    expect(bad.code).toBe(2)
    expect(again.code).toBe(5)
    expect(json(await runCommand(['decide', 'show', card.id, '--json'], {env: h.env})).answer_label).toBe('Wide table')
  })

  it('exits 3 with the --session hint when run outside any agent', async () => {
    const r = await ask([], h.env)

    expect(r.code).toBe(3)
    expect(r.stderr).toContain('--session')
  })
})
