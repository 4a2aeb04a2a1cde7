/**
 * `cast sessions` before oclif (issue 16): bin/run.js answers the common listing invocations
 * without loading oclif (src/lib/cli/sessions-fast.ts). These tests hold it to printing exactly what
 * the oclif command prints (stdout, stderr and exit code, human and --json), on the demo store and
 * on test stores, and check that what it does not take (an unknown flag, help, -w's flags) still
 * gets oclif's answer.
 */
import Database from 'better-sqlite3'
import {execFile, execFileSync} from 'node:child_process'
import fs from 'node:fs'
import {createRequire} from 'node:module'
import os from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {
  BIN,
  claudeLines,
  claudeTranscriptPath,
  json,
  killStarted,
  makeHome,
  ROOT,
  runCast,
  type RunResult,
  startCast,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

/** The same command through oclif alone, as bin/run.js ran every command before the fast path. */
function oclifScript(dir: string): string {
  const file = path.join(dir, 'oclif-only.mjs')
  const core = createRequire(path.join(ROOT, 'package.json')).resolve('@oclif/core')
  fs.writeFileSync(
    file,
    `const {execute} = await import(${JSON.stringify(pathToFileURL(core).href)})\n` +
      `await execute({args: process.argv.slice(2), dir: ${JSON.stringify(pathToFileURL(BIN).href)}})\n`,
  )
  return file
}

function runNode(args: readonly string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, {env, maxBuffer: 64 * 1024 * 1024, timeout: 60_000}, (error, stdout, stderr) => {
      const code = error ? (typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : 1) : 0
      resolve({code, stderr, stdout})
    })
  })
}

/**
 * Both paths, one after the other, over the same store and clock: the fast path as a user runs it
 * (bin/run.js in a child), the oclif command through oclif's own entry in the test process
 * (test/helpers/run-command.ts, which answers as the oclif-only script in a child does).
 */
async function both(args: readonly string[], env: Record<string, string>): Promise<{fast: RunResult; oclif: RunResult}> {
  const fast = await runCast(['sessions', ...args], {env})
  const oclif = await runCommand(['sessions', ...args], {env})
  return {fast, oclif}
}

const LISTINGS: readonly (readonly string[])[] = [
  [],
  ['--json'],
  ['--all'],
  ['--json', '--all'],
  ['--agent', 'claude-code', '--state', 'needs-input,done'],
  ['--json', '--state=done', '--state', 'working', '--agent=codex'],
  ['--quiet'],
  ['--json', '--label', 'fleet'],
  ['--cwd', '/src/app', '--all'],
]

async function expectSame(env: Record<string, string>): Promise<void> {
  for (const args of LISTINGS) {
    const {fast, oclif} = await both(args, env)
    expect({args, code: fast.code, stderr: fast.stderr}).toEqual({args, code: 0, stderr: oclif.stderr})
    expect(oclif.code).toBe(0)
    // Not toEqual on the whole text: a diff of two listings is unreadable; the first differing line is.
    if (fast.stdout !== oclif.stdout) {
      const a = fast.stdout.split('\n')
      const b = oclif.stdout.split('\n')
      const i = a.findIndex((line, k) => line !== b[k])
      expect({args, line: i, text: a[i]}).toEqual({args, line: i, text: b[i]})
    }

    expect(fast.stdout).toBe(oclif.stdout)
    if (args.includes('--json')) expect(() => JSON.parse(fast.stdout)).not.toThrow()
  }
}

describe('cast sessions before oclif: the demo store', () => {
  let h: TempHome
  let env: Record<string, string>
  let script: string

  beforeAll(async () => {
    h = makeHome()
    script = oclifScript(h.dir)
    const r = await runCast(['demo', '--keep', '--json'], {env: {...h.env, TMPDIR: h.dir}, timeout: 120_000})
    expect(r.code).toBe(0)
    const demo = json<{cast_home: string; generated_at: string; home: string}>(r)
    // A fixed clock a minute after the demo's: both paths see the same time.
    env = {...h.env, CAST_HOME: demo.cast_home, CAST_NOW: new Date(Date.parse(demo.generated_at) + 60_000).toISOString(), HOME: demo.home}
    // The stand-in agents stop as the demo ends: let one sync record that before comparing.
    await runCommand(['sessions', '--all'], {env})
    await runCommand(['sessions', '--all'], {env})
  }, 180_000)

  afterAll(() => {
    killStarted()
    h?.cleanup()
  })

  it('prints the same bytes as the oclif command, human and --json, with and without filters', async () => {
    await expectSame(env)
  }, 120_000)

  it('cuts rows to COLUMNS the same way', async () => {
    for (const columns of ['60', '120']) {
      const {fast, oclif} = await both([], {...env, COLUMNS: columns})
      expect(fast.stdout).toBe(oclif.stdout)
      expect(Math.max(...fast.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(Number(columns))
    }
  }, 60_000)

  const hasScript = (() => {
    try {
      execFileSync('script', ['--version'], {stdio: 'ignore'})
      return true
    } catch {
      return false
    }
  })()

  it.skipIf(!hasScript)(
    'on a terminal (colours, the terminal width) the same bytes too',
    async () => {
      const ttyEnv: Record<string, string> = {...env, COLUMNS: '100', TERM: 'xterm-256color'}
      delete ttyEnv.NO_COLOR
      const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`
      const inPty = (argv: readonly string[]): Promise<RunResult> =>
        new Promise((resolve) => {
          execFile(
            'script',
            ['-qec', argv.map(quote).join(' '), '/dev/null'],
            {env: ttyEnv, maxBuffer: 64 * 1024 * 1024, timeout: 60_000},
            (error, stdout, stderr) => {
              resolve({code: error ? 1 : 0, stderr, stdout})
            },
          )
        })
      const fast = await inPty([process.execPath, BIN, 'sessions'])
      const oclif = await inPty([process.execPath, script, 'sessions'])
      expect(fast.code).toBe(0)
      // Colour on a terminal: the styled listing, not the plain one.
      expect(fast.stdout).toContain('\u001B[')
      expect(fast.stdout).toBe(oclif.stdout)
    },
    60_000,
  )
})

describe('cast sessions before oclif: test stores', () => {
  let h: TempHome
  afterEach(() => {
    killStarted()
    h?.cleanup()
  })

  const NOW = Date.parse('2026-11-20T12:00:00Z')
  const session = (sid: string, cwd: string, opts: {prompt: string; question?: string; settled?: boolean; agoMs?: number}): void => {
    writeFile(
      claudeTranscriptPath(h.home, cwd, sid),
      claudeLines({at: new Date(NOW - (opts.agoMs ?? 60_000)), cwd, sessionId: sid, ...opts}),
    )
  }

  it('an empty machine: the empty inbox and where cast looked, the same bytes', async () => {
    h = makeHome()
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}
    const {fast, oclif} = await both([], env)
    expect(fast.stdout).toContain('No agent sessions found')
    expect(fast).toEqual(oclif)
    await expectSame(env)
  }, 120_000)

  it('sessions in several sections, pins, labels and old ones: the same bytes', async () => {
    h = makeHome()
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}
    session('aaaaaaaa-1111-4222-8333-444444444444', '/src/app', {prompt: 'Fix the parser'})
    session('bbbbbbbb-1111-4222-8333-444444444444', '/src/app', {prompt: 'Pick a database', question: 'Postgres or SQLite?'})
    session('cccccccc-1111-4222-8333-444444444444', '/src/api', {agoMs: 120_000, prompt: 'Long job', settled: false})
    session('dddddddd-1111-4222-8333-444444444444', '/src/app/web', {
      agoMs: 30 * 86_400_000,
      prompt: 'Old work, \u001B[31mred\u001B[0m title',
    })
    session('eeeeeeee-1111-4222-8333-444444444444', '/src/api', {agoMs: 3_600_000, prompt: 'Labelled one'})
    expect((await runCast(['sessions'], {env})).code).toBe(0)
    expect((await runCast(['pin', 'aaaaaaaa'], {env})).code).toBe(0)
    expect((await runCast(['label', 'fleet', 'eeeeeeee'], {env})).code).toBe(0)
    await expectSame(env)
    // Filters that match nothing: the hint line, the same bytes.
    const none = await both(['--agent', 'gemini'], env)
    expect(none.fast.stdout).toContain('Nothing in your inbox under these filters')
    expect(none.fast).toEqual(none.oclif)
  }, 120_000)

  it('what it does not take goes to oclif: an unknown flag is a usage error, help is help', async () => {
    h = makeHome()
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}
    for (const args of [
      ['--bogus'],
      ['--json', '--bogus'],
      ['--agent', 'nope'],
      ['--state', 'done,'],
      ['--since', '3'],
      ['stray'],
      ['--all', '--all'],
      ['--help'],
    ]) {
      const {fast, oclif} = await both(args, env)
      expect({args, ...fast}).toEqual({args, ...oclif})
    }

    const bogus = await runCast(['sessions', '--bogus'], {env})
    expect(bogus.code).toBe(2)
    expect(bogus.stderr).toBe('cast: cast sessions has no flag --bogus.\n  See: cast sessions --help\n')
    const bogusJson = json(await runCast(['sessions', '--json', '--bogus'], {env}))
    expect(bogusJson.error).toMatchObject({code: 'usage', exit_code: 2})
    const help = await runCast(['sessions', '--help'], {env})
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('USAGE')
    const badClock = await runCast(['sessions'], {env: {...env, CAST_NOW: 'yesterday-ish'}})
    expect(badClock.code).toBe(2)
  }, 120_000)

  it('a live ingester holding the lease with a fresh heartbeat: no sync at all; a stale one: the sync runs', async () => {
    h = makeHome()
    const at = (sid: string): void =>
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', sid),
        claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt: `Task ${sid.slice(0, 4)}`, sessionId: sid}),
      )
    at('aaaaaaaa-1111-4222-8333-444444444444')
    expect(json(await runCast(['sessions', '--json'], {env: h.env})).sessions).toHaveLength(1)
    // The lease of a live ingester: this test's own pid, this host, a heartbeat just now.
    const db = new Database(path.join(h.castHome, 'cast.db'))
    const lease = db.prepare(`INSERT INTO leases (name, pid, host, started_at, heartbeat_at, info) VALUES ('ingester', ?, ?, ?, ?, '{}')
      ON CONFLICT (name) DO UPDATE SET pid = excluded.pid, host = excluded.host, heartbeat_at = excluded.heartbeat_at`)
    lease.run(process.pid, os.hostname(), Date.now(), Date.now())
    at('bbbbbbbb-1111-4222-8333-444444444444')
    const {fast, oclif} = await both(['--json'], h.env)
    // Nobody read the new file: the ingester would.
    expect(json(fast).sessions.map((s: any) => s.native_id)).toEqual(['aaaaaaaa-1111-4222-8333-444444444444'])
    expect(json(oclif).sessions.map((s: any) => s.native_id)).toEqual(['aaaaaaaa-1111-4222-8333-444444444444'])
    lease.run(process.pid, os.hostname(), Date.now() - 60_000, Date.now() - 60_000)
    db.close()
    const stale = json(await runCast(['sessions', '--json'], {env: h.env}))
    expect(stale.sessions.map((s: any) => s.native_id).sort()).toEqual([
      'aaaaaaaa-1111-4222-8333-444444444444',
      'bbbbbbbb-1111-4222-8333-444444444444',
    ])
  }, 60_000)

  it('with a real live ingester holding the lease (cast sessions -w), the answer is its store, a change made while it runs included', async () => {
    h = makeHome()
    const file = (sid: string): string => claudeTranscriptPath(h.home, '/src/app', sid)
    const start = (sid: string): void =>
      writeFile(
        file(sid),
        claudeLines({at: new Date(Date.now() - 5000), cwd: '/src/app', prompt: `Task ${sid.slice(0, 4)}`, sessionId: sid, settled: false}),
      )
    const A = 'aaaaaaaa-1111-4222-8333-444444444444'
    start(A)
    start('bbbbbbbb-1111-4222-8333-444444444444')
    expect(json(await runCast(['sessions', '--json'], {env: h.env})).sessions).toHaveLength(2)
    const w = startCast(['sessions', '-w', '--json'], h.env)
    await waitForWatcher(h.castHome)
    // While it runs, A asks a question: the ingester reads it (its transition is on the stream).
    fs.appendFileSync(
      file(A),
      JSON.stringify({
        cwd: '/src/app',
        message: {
          content: [{id: 'toolu_q1', input: {questions: [{question: 'Which database?'}]}, name: 'AskUserQuestion', type: 'tool_use'}],
          id: 'msg_q1',
          model: 'claude-opus-4',
          role: 'assistant',
          type: 'message',
        },
        sessionId: A,
        timestamp: new Date().toISOString(),
        type: 'assistant',
        uuid: 'aq1',
      }) + '\n',
    )
    expect(JSON.parse(await w.nextLine())).toMatchObject({reason: 'question', to: 'needs_input'})
    const stored = (): {native_id: string; reason: string; state: string}[] => {
      const db = new Database(path.join(h.castHome, 'cast.db'), {readonly: true})
      try {
        return db.prepare('SELECT native_id, state, reason FROM sessions ORDER BY native_id').all() as never
      } finally {
        db.close()
      }
    }

    const {fast, oclif} = await both(['--json'], h.env)
    for (const r of [fast, oclif]) {
      const answer = json(r).sessions.map((s: any) => ({native_id: s.native_id, reason: s.reason, state: s.state}))
      expect(answer.sort((a: any, b: any) => a.native_id.localeCompare(b.native_id))).toEqual(stored())
      expect(answer.find((s: any) => s.native_id === A)).toEqual({native_id: A, reason: 'question', state: 'needs_input'})
    }

    await w.stop()
  }, 60_000)

  it('the fast path answers by itself, without loading oclif', async () => {
    h = makeHome()
    const env = {...h.env, CAST_NOW: new Date(NOW).toISOString()}
    session('aaaaaaaa-1111-4222-8333-444444444444', '/src/app', {prompt: 'Fix the parser'})
    const probe = path.join(h.dir, 'probe.mjs')
    fs.writeFileSync(
      probe,
      `import {createRequire} from 'node:module'\n` +
        `const {fastSessions} = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist', 'lib', 'cli', 'sessions-fast.js')).href)})\n` +
        `const answered = await fastSessions(process.argv.slice(2))\n` +
        `const oclif = Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@oclif'))\n` +
        `process.stderr.write(JSON.stringify({answered, oclif}))\n`,
    )
    const r = await runNode([probe, '--json'], env)
    expect(JSON.parse(r.stderr)).toEqual({answered: true, oclif: []})
    expect(json(r).sessions.map((s: any) => s.title)).toEqual(['Fix the parser'])
    const refused = await runNode([probe, '--bogus'], env)
    expect(refused.stdout).toBe('')
    expect(JSON.parse(refused.stderr)).toEqual({answered: false, oclif: []})
  }, 60_000)
})
