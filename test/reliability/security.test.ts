/**
 * Security checks: CAST_HOME is private (0700, files 0600) whatever the umask, without changing
 * the umask of the agents cast starts; hook payloads are data, never code or prototypes;
 * `cast send` types shell metacharacters and tmux key names literally; and no command acts on an
 * ambiguous prefix.
 */
import {execFile, execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {castId} from '../../src/core/model/ids.js'
import {fakeInWindow, makeProject, startTmux, type TmuxServer, userTexts, waitFor, writeFakeConfig} from '../fakes/agents.js'
import {
  BIN,
  claudeLines,
  claudeTranscriptPath,
  json,
  makeHome,
  ROOT,
  runCast,
  type RunResult,
  type TempHome,
  waitForWatcher,
  writeFile,
} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {fireHook, killChildren, sleep, spawnCast, transitionsProblems, withDb} from './helpers.js'

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(async () => {
  await killChildren()
  h.cleanup()
})

/** The built CLI under a given umask (000: the loosest a user could have). */
function runWithUmask(umask: string, args: readonly string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      '/bin/sh',
      ['-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, BIN, ...args],
      {env, timeout: 30_000},
      (error, stdout, stderr) => {
        resolve({code: error ? Number((error as {code?: number}).code ?? 1) : 0, stderr, stdout})
      },
    )
  })
}

function modes(dir: string, skip: readonly string[] = []): {path: string; mode: string; dir: boolean}[] {
  const out: {path: string; mode: string; dir: boolean}[] = [{dir: true, mode: (fs.statSync(dir).mode & 0o777).toString(8), path: '.'}]
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, {withFileTypes: true})) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (skip.includes(rel)) continue
      out.push({dir: e.isDirectory(), mode: (fs.statSync(p).mode & 0o777).toString(8), path: rel})
      if (e.isDirectory()) walk(p)
    }
  }

  walk(dir)
  return out
}

const sid = (i: number): string => `5ec00000-0000-4000-8000-${String(i).padStart(12, '0')}`

describe('CAST_HOME is private', () => {
  it('0700 and every file in it 0600 (db, wal, shm, spool, run logs) under umask 000, and loose modes are tightened', async () => {
    const proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    const env = {...h.env, FAKE_DELAY_MS: '20'}
    writeFile(
      claudeTranscriptPath(h.home, '/src/app', sid(1)),
      claudeLines({at: new Date(Date.now() - 60_000), cwd: '/src/app', prompt: 'Private work', sessionId: sid(1)}),
    )

    // A hook payload waiting in the spool (the hook runs first, under the agent's umask).
    expect(
      (await fireHook('claude_code', JSON.stringify({hook_event_name: 'Stop', session_id: sid(1)}), {...env, CAST_HOME: h.castHome})).code,
    ).toBe(0)
    const spooled = modes(h.castHome, ['config.json'])
    expect((await runWithUmask('000', ['sessions', '--json'], env)).code).toBe(0)
    // A headless run with its log, a declaration, and a daemon holding the database open (-wal, -shm).
    const spawned = await runWithUmask('000', ['spawn', '--agent', 'claude', '--headless', '--cwd', proj, 'hello', '--json'], env)
    expect(spawned.code, spawned.stderr).toBe(0)
    expect((await runWithUmask('000', ['state', '--session', sid(1), '--status', 'done', 'Shipped'], env)).code).toBe(0)
    const daemon = spawnCast(['daemon'], env)
    await waitForWatcher(h.castHome)
    const pending = [...spooled.filter((m) => m.path.startsWith('spool/')), ...modes(h.castHome, ['config.json'])]
    daemon.kill('SIGTERM')
    await daemon.done

    const loose = pending.filter((m) => m.mode !== (m.dir ? '700' : '600'))
    expect(pending.map((m) => m.path)).toEqual(expect.arrayContaining(['cast.db', 'cast.db-wal', 'cast.db-shm', 'spool', 'runs']))
    expect(pending.some((m) => m.path.startsWith('spool/') && m.path.endsWith('.json'))).toBe(true)
    expect(pending.some((m) => m.path.startsWith('runs/'))).toBe(true)
    expect(loose).toEqual([])

    // A home someone loosened is tightened on the next run.
    fs.chmodSync(h.castHome, 0o755)
    fs.chmodSync(path.join(h.castHome, 'cast.db'), 0o644)
    expect((await runWithUmask('000', ['sessions'], env)).code).toBe(0)
    expect(modes(h.castHome, ['config.json']).filter((m) => m.mode !== (m.dir ? '700' : '600'))).toEqual([])
  }, 60_000)

  it("the agents cast starts keep the user's umask (their files are not made private)", async () => {
    const proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    const env = {...h.env, FAKE_DELAY_MS: '20'}

    const r = await runWithUmask('022', ['spawn', '--agent', 'claude', '--headless', '--cwd', proj, 'write a file', '--json'], env)
    expect(r.code, r.stderr).toBe(0)
    const transcript = await waitFor(() => {
      const dir = path.join(h.home, '.claude', 'projects')
      const files = fs.existsSync(dir)
        ? fs
            .readdirSync(dir, {recursive: true})
            .map(String)
            .filter((f) => f.endsWith('.jsonl'))
        : []
      return files.length > 0 ? path.join(dir, files[0]!) : null
    })

    // The fake writes its transcript as any program would: 0666 under the umask it inherited.
    expect((fs.statSync(transcript).mode & 0o777).toString(8)).toBe('644')
  }, 60_000)
})

describe('the hook spool is data', () => {
  it('shell metacharacters, command substitutions and __proto__ keys are stored as text, never run, never pollute', async () => {
    const marker = path.join(h.dir, 'pwned')
    const cwd = '/src/app'
    writeFile(
      claudeTranscriptPath(h.home, cwd, sid(1)),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Victim', sessionId: sid(1)}),
    )
    writeFile(
      claudeTranscriptPath(h.home, cwd, sid(2)),
      claudeLines({at: new Date(Date.now() - 60_000), cwd, prompt: 'Bystander', sessionId: sid(2)}),
    )
    expect((await runCast(['sessions'], {env: h.env})).code).toBe(0)
    const bystanderBefore = json(await runCast(['state', 'show', sid(2), '--json'], {env: h.env}))
    const hostile = `$(touch ${marker}) \`touch ${marker}\` ; rm -rf ${h.home} ; touch ${marker} && echo '"' "\\"" $HOME #{pane_id} #(touch ${marker})`

    const daemon = spawnCast(['daemon'], h.env)
    await waitForWatcher(h.castHome)
    const drained = (): Promise<true> =>
      waitFor(() => fs.readdirSync(path.join(h.castHome, 'spool')).filter((n) => !n.startsWith('.')).length === 0 || null)
    // The question text carries every metacharacter: it must come out as the same text.
    expect(
      await fireHook(
        'claude_code',
        JSON.stringify({
          cwd,
          hook_event_name: 'PreToolUse',
          session_id: sid(1),
          tool_input: {questions: [{question: hostile}]},
          tool_name: 'AskUserQuestion',
        }),
        h.env,
      ),
    ).toMatchObject({code: 0})
    await drained()
    const asked = await waitFor(async () => {
      const s = json(await runCast(['sessions', '--json', '--all'], {env: h.env})).sessions.find((x: any) => x.native_id === sid(1))
      return s?.reason === 'question' ? s : null
    })
    const explained = json(await runCast(['explain', asked.id, '--json'], {env: h.env}))
    expect(JSON.stringify(explained)).toContain(JSON.stringify(hostile).slice(1, -1))
    const fired = await Promise.all([
      // As the argument (Codex's notify passes its JSON that way), and an agent name with a command in it.
      fireHook('codex', JSON.stringify({'thread-id': `$(touch ${marker})`, type: 'agent-turn-complete'}), h.env, true),
      fireHook(`claude_code; touch ${marker}`, JSON.stringify({hook_event_name: 'Stop', session_id: `$(touch ${marker})`}), h.env),
      fireHook(`$(touch ${marker})`, '{}', h.env, true),
      // Prototype pollution attempts: would make every later object carry an approval or a kill.
      fireHook(
        'claude_code',
        `{"hook_event_name":"Stop","session_id":"${sid(1)}","__proto__":{"approval":{"text":"polluted","at":1,"event":"x"},"killedAt":1,"settled":false,"pinned":true}}`,
        h.env,
      ),
      fireHook(
        'claude_code',
        `{"hook_event_name":"Stop","session_id":"${sid(1)}","constructor":{"prototype":{"question":{"text":"polluted","at":1,"event":"x"},"polluted":true}}}`,
        h.env,
      ),
    ])
    expect(fired.every((f) => f.code === 0 && f.stderr === '')).toBe(true)
    await drained()
    // The same daemon process reads new work afterwards: a polluted prototype would show up in it.
    fs.appendFileSync(
      claudeTranscriptPath(h.home, cwd, sid(2)),
      JSON.stringify({
        cwd,
        isSidechain: false,
        message: {content: 'more', role: 'user'},
        parentUuid: 'a1',
        sessionId: sid(2),
        timestamp: new Date().toISOString(),
        type: 'user',
        uuid: 'u9',
      }) + '\n',
    )
    // Polled in the test process (run-command.ts), not a child per poll; the reading below is spawned.
    await waitFor(async () => (json(await runCommand(['state', 'show', sid(2), '--json'], {env: h.env})).state === 'working' ? true : null))
    const bystander = json(await runCast(['state', 'show', sid(2), '--json'], {env: h.env}))
    daemon.kill('SIGTERM')
    const d = await daemon.done
    await sleep(200)

    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.existsSync(h.home)).toBe(true)
    expect(d.stderr).not.toMatch(/TypeError|RangeError|at .*\.js/)
    expect(bystanderBefore.reason).toBe('settled')
    expect(bystander).toMatchObject({reason: 'turn_pending', state: 'working'})
    withDb(h.castHome, (db) => {
      expect(db.prepare('SELECT COUNT(*) AS n FROM sessions').get()).toEqual({n: 2})
      expect(transitionsProblems(db)).toEqual([])
      const records = db.prepare('SELECT pinned, killed_at FROM records').all() as {pinned: number; killed_at: number | null}[]
      expect(records.every((r) => r.pinned === 0 && r.killed_at === null)).toBe(true)
    })
  }, 60_000)
})

const hasTmux = ((): boolean => {
  try {
    execFileSync('tmux', ['-V'], {stdio: 'pipe'})
    return true
  } catch {
    console.log('[reliability] cast send: skipped (tmux is not installed)')
    return false
  }
})()

describe.runIf(hasTmux)('cast send types literally', () => {
  let server: TmuxServer
  beforeEach(() => {
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '50'})
  })
  afterEach(() => server.kill())

  it('shell metacharacters, tmux key names and format strings arrive as the same text; nothing runs', async () => {
    const env = {...h.env, ...server.env}
    const proj = makeProject(h.dir)
    const marker = path.join(h.dir, 'pwned')
    const SID = '5ec0aaaa-0000-4000-8000-00000000beef'
    const pane = fakeInWindow(server, {cwd: proj, prompt: 'Start', sessionId: SID})
    await waitFor(async () => (json(await runCommand(['state', 'show', SID, '--json'], {env})).reason === 'settled' ? true : null))
    const messages = [
      `$(touch ${marker})`,
      `\`touch ${marker}\``,
      `; touch ${marker} ;`,
      'C-c',
      'Enter',
      'Escape',
      'C-d',
      'M-x',
      '-t %0 -X cancel',
      `#{pane_id} #(touch ${marker}) #[fg=red]`,
      `it's "quoted" \\ back\\slash \\n not a newline`,
      `a && b || c | d > ${marker} < /etc/passwd &`,
      '$HOME ${PATH} ~ * ? [a-z] !! !$',
      'ends with semicolons;;;',
      'héllo — ✓ 日本語 🚀',
    ]
    const sent: string[] = ['Start']
    for (const m of messages) {
      // After "--" a message may start with a dash (without it, "-t …" is a flag: exit 2, nothing sent).
      const r = await runCast(['send', SID, '--json', '--', m], {env})
      expect(r.code, `${m}: ${r.stderr}`).toBe(0)
      sent.push(m)
      // One turn at a time: the next message goes in once this one is in the transcript.
      await waitFor(
        () => userTexts(h.home, proj, SID).length === sent.length || null,
        20_000,
        () => JSON.stringify(userTexts(h.home, proj, SID)),
      )
    }

    // Several lines, each with metacharacters: every line arrives, in order.
    const multi = [`first $(touch ${marker})`, 'C-c', `last; \`id\``]
    expect((await runCast(['send', SID, multi.join('\n')], {env})).code).toBe(0)
    sent.push(...multi)
    await waitFor(
      () => userTexts(h.home, proj, SID).length === sent.length || null,
      20_000,
      () => JSON.stringify(userTexts(h.home, proj, SID)),
    )

    expect(userTexts(h.home, proj, SID)).toEqual(sent)
    const screen = server.tmux(['capture-pane', '-p', '-J', '-S', '-200', '-t', pane])
    for (const m of messages) expect(screen).toContain(`> ${m}`)
    expect(fs.existsSync(marker)).toBe(false)
    // The agent was never interrupted (C-c as a key would have killed it).
    expect(server.tmux(['display-message', '-p', '-t', pane, '#{pane_dead}']).trim()).toBe('0')
  }, 120_000)
})

describe('an ambiguous prefix', () => {
  /** Two native ids whose cast ids share their first five characters. */
  function collidingNativeIds(): [string, string, string] {
    const seen = new Map<string, string>()
    for (let i = 0; ; i++) {
      const native = `c011${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`
      const prefix = castId('claude_code', native).slice(0, 5)
      const other = seen.get(prefix)
      if (other) return [other, native, prefix]
      seen.set(prefix, native)
    }
  }

  /** Everything a command could change. */
  function dump(): unknown {
    return withDb(h.castHome, (db) => {
      const tables = (
        db
          .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('leases', 'meta', 'files', 'sqlite_sequence')`)
          .all() as {name: string}[]
      ).map((t) => t.name)
      return Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}"`).all()]))
    })
  }

  it('every command that takes a session exits 4, names the matches, and changes nothing', async () => {
    const [a, b, castPrefix] = collidingNativeIds()
    const natives = [
      'dup0aaaa-1111-4222-8333-444444444444',
      'dup0bbbb-1111-4222-8333-444444444444',
      a,
      b,
      'solo0000-1111-4222-8333-444444444444',
    ]
    const at = new Date(Date.now() - 60_000)
    for (const n of natives)
      writeFile(
        claudeTranscriptPath(h.home, '/src/app', n),
        claudeLines({at, cwd: '/src/app', prompt: `Task ${n.slice(0, 8)}`, sessionId: n}),
      )
    const env = {...h.env, CAST_NOW: new Date(at.getTime() + 30_000).toISOString()}
    expect((await runCast(['sessions', '--json'], {env})).code).toBe(0)
    const solo = castId('claude_code', natives[4]!)

    // P: the ambiguous prefix. Every verb, with whatever else it needs to act.
    const cases = (p: string): string[][] => [
      ['approve', p],
      ['choose', p, '1'],
      ['deny', p],
      ['defer', p],
      ['dismiss', p],
      ['disown', p, '--all'],
      ['explain', p],
      ['kill', p],
      ['label', 'x', p],
      ['mark', 'done', p],
      ['own', p, 'bob@example.com'],
      ['owners', p],
      ['pin', p],
      ['pin', solo, p],
      ['rename', p, 'New title'],
      ['restore', p],
      ['send', p, 'hello'],
      ['stash', p],
      ['unpin', p],
      ['wait', p, '--until', 'done', '--timeout', '1s'],
      ['wake', p],
      ['snooze', p, '--for', '1h'],
      ['schedule', p, 'later', '--in', '1h'],
      ['schedule', 'list', p],
      ['state', '--session', p, 'text'],
      ['state', 'clear', '--session', p],
      ['state', 'show', p],
      ['decide', 'Which?', '--option', 'A :: a', '--option', 'B :: b', '--session', p],
      ['spawn', '--agent', 'claude', '--headless', '--parent', p, 'child task'],
    ]
    const before = dump()
    const failures: string[] = []
    // In the test process (test/helpers/run-command.ts): the 56 refusals are the resolver's, the
    // same in a child; test/e2e/cli.test.ts spawns the CLI for exit 3 and 4.
    for (const p of ['dup0', castPrefix]) {
      for (const args of cases(p)) {
        const r = await runCommand(args, {env})
        if (r.code !== 4) failures.push(`${args.join(' ')} -> exit ${r.code}: ${(r.stderr || r.stdout).trim().split('\n')[0]}`)
        else if (!/matches 2 sessions/.test(r.stderr)) failures.push(`${args.join(' ')}: ${r.stderr.trim()}`)
      }
    }

    expect(failures).toEqual([])
    expect(dump()).toEqual(before)
    withDb(h.castHome, (db) => expect(transitionsProblems(db)).toEqual([]))

    // Every command that takes a session is in the list above (a new one must be added).
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {args?: Record<string, unknown>; flags?: Record<string, unknown>; strict?: boolean}>
    }
    const covered = new Set(
      cases('P').map((c) =>
        ['state', 'schedule', 'decide'].includes(c[0]!) && ['list', 'clear', 'show'].includes(c[1]!) ? `${c[0]}:${c[1]}` : c[0]!,
      ),
    )
    const takesSession = Object.entries(manifest.commands)
      .filter(
        ([, c]) =>
          Object.keys(c.args ?? {}).some((k) => /session/i.test(k)) ||
          'session' in (c.flags ?? {}) ||
          'parent' in (c.flags ?? {}) ||
          c.strict === false,
      )
      .map(([id]) => id)
    expect(takesSession.filter((id) => !covered.has(id))).toEqual([])
  }, 240_000)
})
