/**
 * Words a user understands, and JSON everywhere: the built CLI as a child process over a
 * temporary HOME with two Claude Code sessions whose ids share a prefix.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {processName} from '../../src/core/model/work-state.js'
import {verifyIdentity} from '../../src/lib/agents/terminate.js'
import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = 'aaaaaaaa-1111-4222-8333-444444444444'
const OTHER = 'aaaabbbb-1111-4222-8333-444444444444'
let h: TempHome

beforeAll(async () => {
  h = makeHome()
  for (const [sid, prompt] of [
    [SID, 'Fix the parser'],
    [OTHER, 'Pick a database'],
  ] as const)
    writeFile(
      claudeTranscriptPath(h.home, '/src/app', sid),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt, sessionId: sid}),
    )
  expect((await runCast(['sessions'], {env: h.env})).code).toBe(0)
})

afterAll(() => h.cleanup())

const cast = (args: string[]) => runCast(args, {env: h.env})

describe('parser errors are sentences', () => {
  it('a missing argument names it and says what it is', async () => {
    const r = await cast(['owners'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^cast: cast owners needs SESSION: session id, native id, or a unique prefix/)
    expect(r.stderr).not.toMatch(/Missing 1 required arg/)
    const mark = await cast(['mark'])
    expect(mark.stderr).toMatch(/cast mark needs VERDICT \(done, dormant, needs-input, unread or read\) and SESSION\./)
  })

  it('a missing required flag names the flag and what it wants', async () => {
    const r = await cast(['wait', 'aaaab'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^cast: cast wait needs --until \(wanted states/)
    expect(r.stderr).not.toMatch(/The following error occurred/)
  })

  it('a mistyped flag gets the nearest one', async () => {
    const r = await cast(['sessions', '--jsn'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('cast sessions has no flag --jsn.')
    expect(r.stderr).toContain('Did you mean --json?')
    const state = await cast(['explain', 'aaaab', '--jason'])
    expect(state.stderr).toContain('Did you mean --json?')
  })

  it('an id given to cast sessions points at cast explain', async () => {
    const r = await cast(['sessions', 'aaaabbbb'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('cast sessions takes no argument "aaaabbbb".')
    expect(r.stderr).toContain('To see that session: cast explain aaaabbbb')
    const j = await cast(['sessions', 'aaaabbbb', '--json'])
    expect(json(j).error).toMatchObject({code: 'usage', exit_code: 2})
  })

  it('help lists each argument once, only the last as repeatable', async () => {
    const r = await cast(['mark', '--help'])
    expect(r.stdout).toMatch(/^ {2}VERDICT {5}done, dormant, needs-input, unread or read\./m)
    expect(r.stdout).toMatch(/^ {2}SESSION\.\.\. /m)
    expect(r.stdout).not.toMatch(/AS\.\.\./)
  })
})

describe('sessions are named so a person can tell them apart', () => {
  it('an ambiguous prefix lists short id, title, agent and native id', async () => {
    const r = await cast(['explain', 'aaaa'])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/\s\w{7} {2}Fix the parser {2}\(claude_code aaaaaaaa-1111-4222-8333-444444444444\)/)
    expect(r.stderr).toMatch(/\s\w{7} {2}Pick a database {2}\(claude_code aaaabbbb-1111-4222-8333-444444444444\)/)
  })

  it('not found lists the nearest the same way', async () => {
    const r = await cast(['explain', 'aaaaaaab'])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/Nearest:\n\s+\w{7} {2}Fix the parser {2}\(claude_code aaaaaaaa-/)
  })
})

describe('cast status --format', () => {
  it('an unknown field is a usage error naming it and the known ones', async () => {
    const r = await cast(['status', '--format', '{bogus} {need}'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('{bogus}')
    expect(r.stderr).toContain('{need} {quiet} {questions} {working} {done} {total}')
    const ok = await cast(['status', '--format', '{need}/{total}'])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toMatch(/^\d+\/\d+\n$/)
  })
})

describe('processes are named in words', () => {
  it('no pid reads as the agent’s process; pid 0 and 1 are refused in a sentence', () => {
    expect(processName(0)).toBe("the agent's process")
    expect(processName(4242)).toBe('process 4242')
    expect(verifyIdentity(0, Date.now())).toBe('cast knows no process id for it, so there is no process it may signal')
    expect(verifyIdentity(1, Date.now())).toMatch(/pid 1 \(init\), which cast never signals/)
  })
})

describe('--json everywhere', () => {
  const envelope = (stdout: string) => {
    const lines = stdout.split('\n').filter(Boolean)
    expect(lines).toHaveLength(1)
    return JSON.parse(lines[0]!).error as {code: string; exit_code: number; message: string}
  }

  it('cast completion --json: the envelope on a usage error, the script as JSON otherwise', async () => {
    const bad = await cast(['completion', 'tcsh', '--json'])
    expect(bad.code).toBe(2)
    expect(envelope(bad.stdout)).toMatchObject({code: 'usage', exit_code: 2})
    const missing = await cast(['completion', '--json'])
    expect(envelope(missing.stdout).message).toMatch(/cast completion needs SHELL \(bash, zsh or fish\)/)
    const ok = json(await cast(['completion', 'bash', '--json']))
    expect(ok.shell).toBe('bash')
    expect(ok.script).toContain('_cast_complete')
  })

  it('cast inbox --json and bare cast --json print the envelope', async () => {
    const inbox = await cast(['inbox', '--json'])
    expect(inbox.code).toBe(2)
    expect(envelope(inbox.stdout).message).toMatch(/interactive/)
    const bare = await cast(['--json'])
    expect(bare.code).toBe(2)
    expect(envelope(bare.stdout)).toMatchObject({code: 'usage', exit_code: 2})
    expect(bare.stderr).toBe('')
  })

  it('cast --json sessions runs cast sessions --json', async () => {
    const r = await cast(['--json', 'sessions'])
    expect(r.code).toBe(0)
    expect(json(r).counts).toBeDefined()
  })
})
