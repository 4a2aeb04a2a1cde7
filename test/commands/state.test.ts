/**
 * `cast state` as an agent runs it: from inside the agent's own process tree, with no flag.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {type FakeProcess, makeProject, startFake, waitFor} from '../fakes/agents.js'
import {BIN, json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000a001'

describe('cast state', () => {
  let h: TempHome
  let fake: FakeProcess | null = null
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
  })

  afterEach(async () => {
    await fake?.stop()
    fake = null
    h.cleanup()
  })

  /** Run a cast command as a child of the fake agent (its bash mode), return its output. */
  async function fromAgent(args: string): Promise<string> {
    const before = fake!.out().length
    fake!.say(`!${process.execPath} ${BIN} ${args}`)
    await waitFor(
      () => /\[bash exit \d+\]/.test(fake!.out().slice(before)),
      20_000,
      () => fake!.out(),
    )
    return fake!.out().slice(before)
  }

  async function startAgent(): Promise<void> {
    fake = startFake({cwd: proj, env: {...h.env, FAKE_DELAY_MS: '100'}, prompt: 'Port the parser', sessionId: SID})
    await fake.waitForOutput(/< Done: Port the parser/)
  }

  it('finds its session from the process tree of the agent that runs it', async () => {
    await startAgent()

    const out = await fromAgent(`state --status done "$(printf 'Parser ported\\nAll 41 tests pass')"`)

    expect(out).toContain('[bash exit 0]')
    expect(out).toContain('found via process tree')
    const show = json(await runCommand(['state', 'show', SID, '--json'], {env: h.env}))
    expect(show.state).toBe('done')
    expect(show.reason).toBe('declared_done')
    expect(show.state_line).toMatchObject({messages_since: 0, status: 'done', text: 'Parser ported\nAll 41 tests pass'})
  })

  it('shows the first line of the state and the messages since in cast sessions', async () => {
    await startAgent()
    await fromAgent(`state --status done "$(printf 'Parser ported\\nAll 41 tests pass')"`)

    fake!.say('one more thing')
    await fake!.waitForOutput(/< Done: one more thing/)
    const listing = await runCommand(['sessions'], {env: h.env})

    expect(listing.stdout).toContain('done: Parser ported  (2 msgs since)')
    expect(listing.stdout).not.toContain('All 41 tests pass')
  })

  it('lets done lapse at the next turn: the session must declare again', async () => {
    await startAgent()
    await fromAgent('state --status done "Shipped"')
    expect(json(await runCommand(['state', 'show', SID, '--json'], {env: h.env})).state).toBe('done')

    fake!.say('also update the docs')
    await fake!.waitForOutput(/< Done: also update the docs/)
    const show = json(await runCommand(['state', 'show', SID, '--json'], {env: h.env}))

    expect(show.state).toBe('needs_input')
    expect(show.reason).toBe('settled')
  })

  it('exits 3 and says how to pass --session when nothing matches', async () => {
    await startAgent()

    const r = await runCommand(['state', 'Working on it'], {env: h.env})
    const j = await runCommand(['state', 'Working on it', '--json'], {env: h.env})

    expect(r.code).toBe(3)
    expect(r.stderr).toContain('--session')
    expect(r.stderr).toContain('CAST_SESSION')
    expect(j.code).toBe(3)
    expect(json(j).error.exit_code).toBe(3)
  })

  it('takes the session from CAST_SESSION or --session (any unique prefix)', async () => {
    await startAgent()

    const viaEnv = await runCommand(['state', 'Reading the grammar'], {env: {...h.env, CAST_SESSION: SID.slice(0, 8)}})
    const viaFlag = await runCommand(['state', '--session', SID, '--status', 'blocked', 'Need the API key'], {env: h.env})

    expect(viaEnv.code).toBe(0)
    expect(viaFlag.code).toBe(0)
    const show = json(await runCommand(['state', 'show', SID, '--json'], {env: h.env}))
    expect(show.state_line.text).toBe('Need the API key')
    expect(show.state).toBe('needs_input')
    expect(show.reason).toBe('declared_blocked')
  })

  it('refuses a dormant state that does not name its wake, an over-long text, and a bare call', async () => {
    await startAgent()
    const env = {...h.env, CAST_SESSION: SID}

    const dormant = await runCommand(['state', '--status', 'dormant'], {env})
    const long = await runCommand(['state', 'x'.repeat(4001)], {env})
    const bare = await runCommand(['state'], {env})
    const fits = await runCommand(['state', `${'line\n'.repeat(799)}last`], {env})

    expect(dormant.code).toBe(2)
    expect(dormant.stderr).toContain('names the wake')
    expect(long.code).toBe(2)
    expect(long.stderr).toContain('4000')
    expect(bare.code).toBe(2)
    expect(fits.code).toBe(0)
  })
})
