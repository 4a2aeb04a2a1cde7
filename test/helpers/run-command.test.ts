/**
 * The in-process runner (run-command.ts) answers as the spawned CLI (cli.ts) does: the same
 * stdout, stderr and exit code for a success, a usage error, a not-found error under --json, an
 * unknown command and help; the run's environment, stdin and cwd reach the command; and the test
 * process's own environment, cwd, exit code and stdio come back unchanged. And the module caches
 * of src/ that one process keeps across commands answer for the environment of each.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {projectRootOf} from '../../src/adapters/gemini/paths.js'
import {readScreen} from '../../src/lib/agents/dialog.js'
import {claudeLines, claudeTranscriptPath, makeHome, runCast, type TempHome, writeFile} from './cli.js'
import SnoozeSweep from '../../src/commands/snooze/sweep.js'
import Sessions from '../../src/commands/sessions.js'
import {commandClass, runCommand} from './run-command.js'

const SID = '5e1f0000-0000-4000-8000-00000000c0de'

describe('runCommand (in-process) against runCast (spawned)', () => {
  let h: TempHome
  let env: Record<string, string>

  beforeAll(() => {
    h = makeHome()
    const cwd = path.join(h.dir, 'proj')
    fs.mkdirSync(cwd)
    writeFile(
      claudeTranscriptPath(h.home, cwd, SID),
      claudeLines({at: new Date('2026-11-29T12:00:00Z'), cwd, prompt: 'Port the parser', sessionId: SID}),
    )
    env = {...h.env, CAST_NOW: '2026-11-29T12:05:00Z'}
  })

  afterAll(() => h.cleanup())

  it.each([
    ['a listing', ['sessions', '--json']],
    ['a human listing', ['sessions']],
    ['a bad flag', ['sessions', '--bogus']],
    ['a bad flag under --json', ['sessions', '--json', '--bogus']],
    ['a session not found under --json', ['explain', 'zzzzzzzz', '--json']],
    ['a session not found', ['explain', 'zzzzzzzz']],
    ['an unknown command', ['sesions']],
    ['a topic without a command', ['decide']],
    ['help', ['presence', '--help']],
    ['the version', ['--version']],
    ['a bad CAST_NOW', ['presence', 'away']],
  ])('%s: same stdout, stderr and exit code', async (what, args) => {
    const runEnv = what === 'a bad CAST_NOW' ? {...env, CAST_NOW: 'yesterday-ish'} : env
    const spawned = await runCast(args, {env: runEnv})
    const inProcess = await runCommand(args, {env: runEnv})
    expect(inProcess).toEqual(spawned)
  })

  it('fails the way the spawned CLI fails: exit codes differ between the cases above', async () => {
    const codes = new Set<number>()
    for (const args of [
      ['sessions', '--json'],
      ['sessions', '--bogus'],
      ['explain', 'zzzzzzzz', '--json'],
    ])
      codes.add((await runCommand(args, {env})).code)
    expect([...codes].sort()).toEqual([0, 2, 3])
  })

  it('gives the command exactly the run environment, the run cwd and the input as stdin, then restores the test process', async () => {
    const before = {
      cwd: process.cwd(),
      env: {...process.env},
      exitCode: process.exitCode,
      stdin: process.stdin,
      write: process.stdout.write,
    }
    const cwd = fs.realpathSync(path.join(h.dir, 'proj'))
    // `state --status done -` reads the text from stdin and finds the session from CAST_SESSION.
    const r = await runCommand(['state', '--status', 'done', '-', '--json'], {
      cwd,
      env: {...env, CAST_SESSION: SID},
      input: 'Parser ported\n',
    })
    expect(r.code, r.stderr).toBe(0)
    const shown = await runCommand(['state', 'show', SID, '--json'], {env})
    expect(JSON.parse(shown.stdout).state_line).toMatchObject({status: 'done', text: 'Parser ported'})
    // The test process's own CAST_SESSION, HOME and cwd were not touched.
    expect(process.env).toEqual(before.env)
    expect(process.cwd()).toBe(before.cwd)
    expect(process.exitCode).toBe(before.exitCode)
    expect(process.stdout.write).toBe(before.write)
    expect(process.stdin).toBe(before.stdin)
  })

  it('an environment variable of one run does not reach the next', async () => {
    const {CAST_USER: _user, ...noUser} = env
    const named = await runCommand(['presence', '--json'], {env: {...env, CAST_USER: 'ana@example.com'}})
    const unnamed = await runCommand(['presence', '--json'], {env: noUser})
    expect(JSON.parse(named.stdout).who).toBe('ana@example.com')
    expect(JSON.parse(unnamed.stdout).who).not.toBe('ana@example.com')
  })
})

describe('the commands runCommand runs', () => {
  it('are the classes of src/commands, the ones a test imports, not the built ones in dist/', async () => {
    expect(await commandClass('sessions')).toBe(Sessions)
    expect(await commandClass('snooze:sweep')).toBe(SnoozeSweep)
  })
})

describe('module caches across commands in one process', () => {
  const homes: TempHome[] = []
  afterAll(() => {
    for (const h of homes) h.cleanup()
  })
  const home = (): TempHome => {
    const h = makeHome()
    homes.push(h)
    return h
  }

  it('the identity without CAST_USER is the one of each run (git config user.email under its HOME)', async () => {
    const ids: string[] = []
    for (const email of ['ana@example.com', 'bo@example.com']) {
      const h = home()
      writeFile(path.join(h.home, '.gitconfig'), `[user]\n\temail = ${email}\n`)
      const {CAST_USER: _user, ...env} = h.env
      // cwd outside any repository, so only HOME's config names the user.
      ids.push(JSON.parse((await runCommand(['presence', '--json'], {cwd: h.dir, env})).stdout).who)
    }

    expect(ids).toEqual(['ana@example.com', 'bo@example.com'])
  })

  it("the screen patterns are the config's as it is now, not as the first read found it", () => {
    const h = home()
    const env = {CAST_HOME: h.castHome}
    const screen = 'Frobnicate the widget? [y/N]'
    expect(readScreen(env, 'claude_code', screen)?.kind).not.toBe('approval')
    writeFile(path.join(h.castHome, 'config.json'), JSON.stringify({screen_patterns: {claude_code: {approval: ['^Frobnicate (.+)\\?']}}}))
    expect(readScreen(env, 'claude_code', screen)).toEqual({kind: 'approval', text: 'the widget'})
  })

  it("Gemini's projects.json is read for each Gemini folder", () => {
    const roots: (string | null)[] = []
    for (const project of ['/work/alpha', '/work/beta']) {
      const gemini = path.join(home().home, '.gemini')
      fs.mkdirSync(path.join(gemini, 'tmp', 'app'), {recursive: true})
      writeFile(path.join(gemini, 'projects.json'), JSON.stringify({projects: {[project]: 'app'}}))
      roots.push(projectRootOf(gemini, 'app'))
    }

    expect(roots).toEqual(['/work/alpha', '/work/beta'])
  })
})
