/**
 * `cast state`'s fast path (src/lib/state/state-fast.ts) against the command it stands in for, route
 * by route: two homes built alike, every call made in one through bin/run.js and in the other
 * through oclif alone (test/helpers/oclif-only.mjs), from inside a running agent (a fake Claude
 * Code whose script is named claude-*, so the caller's ancestry names the agent) or from outside.
 * Same stdout, stderr and exit code for each call, and the same sessions after them all. First no
 * daemon: the fast path syncs what the command would have read, and leaves the process tree to it
 * (the stored claims are current only while a live ingester keeps them). Then the same table with
 * `cast daemon` running on both sides: the fast path's declarations go through the daemon's socket
 * (src/lib/state/state-serve.ts; the probe says "socket": neither oclif nor better-sqlite3 loaded),
 * the process tree included, and what the daemon declines goes to the command as before.
 */
import fs from 'node:fs'
import path from 'node:path'
import {spawn} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FAKE_CLAUDE, type FakeProcess, makeProject, waitFor} from '../fakes/agents.js'
import {BIN, claudeLines, claudeTranscriptPath, json, makeHome, runCast, startCast, type TempHome, writeFile} from '../helpers/cli.js'

const HELPERS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'helpers')
const OCLIF_ONLY = path.join(HELPERS, 'oclif-only.mjs')
const PROBE = path.join(HELPERS, 'oclif-probe.mjs')
const SID = '5e1f0000-0000-4000-8000-00000000b001'
/** A session with a transcript and no process: found through CLAUDE_SESSION_ID, proved live by the ancestry. */
const QUIET = '5e1f0000-0000-4000-8000-00000000b002'
const LONE = '5e1f0000-0000-4000-8000-00000000b003'

interface Side {
  h: TempHome
  fake: FakeProcess
  bin: string
  probe: string
}

let fast: Side
let slow: Side

/** A fake Claude Code whose script is named `claude-fake.mjs`: its process goes by a name of Claude Code's (claude-*). */
function startNamedFake(h: TempHome, cwd: string): FakeProcess {
  const script = path.join(h.dir, 'claude-fake.mjs')
  fs.copyFileSync(FAKE_CLAUDE, script)
  const child = spawn(process.execPath, [script, '--session-id', SID, 'Port the parser'], {
    cwd,
    env: {...h.env, FAKE_DELAY_MS: '100'},
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c) => (out += String(c)))
  child.stderr.on('data', (c) => (out += String(c)))
  return {
    child,
    out: () => out,
    say: (line) => child.stdin.write(line + '\n'),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
    waitForOutput: (pattern, timeoutMs = 20_000) =>
      waitFor(
        () => (pattern.test(out) ? out : null),
        timeoutMs,
        () => out,
      ),
  }
}

const at = new Date(Date.now() - 120_000)

/** What a route takes with a daemon running: the fast path's through the socket, the process tree too. */
function withDaemon(r: (typeof ROUTES)[number]): 'oclif' | 'socket' {
  return r.path === 'fast' || r.name.startsWith('the process tree') ? 'socket' : 'oclif'
}

async function side(bin: string): Promise<Side> {
  const h = makeHome()
  const proj = makeProject(h.dir)
  for (const id of [QUIET, LONE])
    writeFile(claudeTranscriptPath(h.home, '/src/other', id), claudeLines({at, cwd: '/src/other', prompt: `Task ${id}`, sessionId: id}))
  const fake = startNamedFake(h, proj)
  await fake.waitForOutput(/< Done: Port the parser/)
  await runCast(['sessions', '--json', '--all'], {env: h.env})
  return {bin, fake, h, probe: path.join(h.dir, 'probe')}
}

beforeAll(async () => {
  ;[fast, slow] = await Promise.all([side(BIN), side(OCLIF_ONLY)])
}, 120_000)

afterAll(async () => {
  for (const s of [fast, slow]) {
    await s?.fake.stop()
    s?.h.cleanup()
  }
})

interface Answer {
  stdout: string
  stderr: string
  code: number
  path: string
}

/** A word for `sh -c` on one line (the agent reads its commands line by line): a newline through printf. */
function q(s: string): string {
  const quoted = `'${s.replaceAll("'", `'\\''`)}'`
  return s.includes('\n') ? `"$(printf '%b' ${quoted.replaceAll('\n', '\\n')})"` : quoted
}

/** One `cast state` call on a side: from inside its agent (its bash mode) or from the test process. */
async function call(s: Side, args: string[], o: {vars?: Record<string, string>; inAgent: boolean}): Promise<Answer> {
  fs.rmSync(s.probe, {force: true})
  const env = {...s.h.env, ...o.vars, CAST_TEST_PROBE: s.probe, NODE_OPTIONS: `--import=${PROBE}`}
  let r: {stdout: string; stderr: string; code: number}
  if (o.inAgent) {
    const out = path.join(s.h.dir, 'out')
    const vars = Object.entries({...o.vars, CAST_TEST_PROBE: s.probe, NODE_OPTIONS: `--import=${PROBE}`})
      .map(([k, v]) => `${k}=${q(v)}`)
      .join(' ')
    const before = s.fake.out().length
    s.fake.say(`!${vars} ${process.execPath} ${s.bin} state ${args.map(q).join(' ')} >${out}.1 2>${out}.2; echo $? >${out}.rc`)
    await waitFor(
      () => /\[bash exit \d+\]/.test(s.fake.out().slice(before)),
      30_000,
      () => s.fake.out(),
    )
    r = {
      code: Number(fs.readFileSync(`${out}.rc`, 'utf8')),
      stderr: fs.readFileSync(`${out}.2`, 'utf8'),
      stdout: fs.readFileSync(`${out}.1`, 'utf8'),
    }
  } else {
    r = await new Promise((resolve) => {
      const child = spawn(process.execPath, [s.bin, 'state', ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (c) => (stdout += String(c)))
      child.stderr.on('data', (c) => (stderr += String(c)))
      child.on('close', (code) => resolve({code: code ?? -1, stderr, stdout}))
    })
  }

  return {...r, path: fs.readFileSync(s.probe, 'utf8').trim()}
}

/** What differs between two runs by nature: the clock's fields, the agents' pids and the sides' folders. */
function same(text: string, s: Side): string {
  return text
    .replaceAll(s.h.dir, '<dir>')
    .replaceAll(/pid \d+/g, 'pid N')
    .replaceAll(/"(\w*_at|at|age|\w*since|heartbeat\w*)": ("[^"]*"|\d+|null)/g, '"$1": "<time>"')
    .replaceAll(/"pid": \d+/g, '"pid": N')
}

const ROUTES: {name: string; args: string[]; vars?: Record<string, string>; inAgent: boolean; path: 'fast' | 'oclif'; code: number}[] = [
  // No live ingester keeps the claims current: the command syncs, then walks the tree.
  {args: ['Porting the parser'], code: 0, inAgent: true, name: 'the process tree', path: 'oclif'},
  {
    args: ['--status', 'done', 'Parser ported\nAll 41 tests pass', '--json'],
    code: 0,
    inAgent: true,
    name: 'the process tree, --json',
    path: 'oclif',
  },
  // A variable naming a session the store does not hold: the command syncs first, never takes the tree's claim.
  {
    args: ['New one'],
    code: 0,
    inAgent: true,
    name: "the agent's variable, a session not in the store",
    path: 'oclif',
    vars: {CLAUDE_SESSION_ID: '5e1f0000-0000-4000-8000-00000000b0ff'},
  },
  {
    args: ['Quiet one'],
    code: 0,
    inAgent: true,
    name: "the agent's variable, its process proved by the ancestry",
    path: 'fast',
    vars: {CLAUDE_SESSION_ID: QUIET},
  },
  {
    args: ['--json', 'Again'],
    code: 0,
    inAgent: true,
    name: "the agent's variable, now live",
    path: 'fast',
    vars: {CLAUDE_SESSION_ID: QUIET},
  },
  {
    args: ['Lone one'],
    code: 0,
    inAgent: false,
    name: "the agent's variable, no agent above",
    path: 'fast',
    vars: {CLAUDE_SESSION_ID: LONE},
  },
  {
    args: ['--status=blocked', 'Need the key'],
    code: 0,
    inAgent: false,
    name: 'CAST_SESSION, a native id',
    path: 'fast',
    vars: {CAST_SESSION: LONE},
  },
  {args: ['--session', SID, '--status', 'dormant', 'CI at 3pm'], code: 0, inAgent: false, name: '--session', path: 'fast'},
  {args: ['--session', '5e1f0000', 'x'], code: 4, inAgent: false, name: 'an ambiguous prefix', path: 'oclif'},
  {args: ['Nobody'], code: 3, inAgent: false, name: 'nothing names it', path: 'oclif'},
  {args: ['--session', 'zzzzzzzz', 'x'], code: 3, inAgent: false, name: 'an unknown session', path: 'oclif'},
  {args: ['--bogus', 'x'], code: 2, inAgent: true, name: 'a bad flag', path: 'oclif'},
  {args: ['--status', 'dormant', '  '], code: 2, inAgent: true, name: 'dormant without its wake', path: 'oclif'},
  {args: ['--status', 'finished', 'x'], code: 2, inAgent: true, name: 'a bad status', path: 'oclif'},
]

/** Each route on both sides: the same bytes and exit code, each side by the path it should take. */
async function compareRoutes(expected: (r: (typeof ROUTES)[number]) => string): Promise<void> {
  for (const r of ROUTES) {
    const a = await call(fast, r.args, r)
    const b = await call(slow, r.args, r)
    expect({code: a.code, path: a.path, route: r.name}).toEqual({code: r.code, path: expected(r), route: r.name})
    expect(b.path).toBe('oclif')
    expect({route: r.name, stderr: a.stderr, stdout: same(a.stdout, fast)}).toEqual({
      route: r.name,
      stderr: b.stderr,
      stdout: same(b.stdout, slow),
    })
    expect(b.code).toBe(a.code)
  }

  for (const id of [SID, QUIET, LONE]) {
    const a = await runCast(['explain', id, '--json'], {env: fast.h.env})
    const b = await runCast(['explain', id, '--json'], {env: slow.h.env})
    expect(json(a).session.state_line).not.toBeNull()
    // The session as the inbox shows it (the explanation's notes carry pids and times of their own).
    expect(same(JSON.stringify(json(a).session, null, 2), fast)).toBe(same(JSON.stringify(json(b).session, null, 2), slow))
  }

  // The ancestry wrote the agent's process as the command does: the quiet session reads live.
  expect((await runCast(['explain', QUIET, '--json'], {env: fast.h.env})).stdout).toMatch(
    /claude-fake\.mjs \(pid \d+\) above `cast`, found via CLAUDE_SESSION_ID/,
  )
}

describe("cast state's fast path against the command, route by route", () => {
  it('answers each route with the same bytes and exit code, and leaves the same sessions (no daemon)', async () => {
    await compareRoutes((r) => r.path)
  }, 240_000)

  it("does the same through the daemon's socket while cast daemon runs on both sides", async () => {
    const daemons = [startCast(['daemon'], fast.h.env), startCast(['daemon'], slow.h.env)]
    try {
      for (const s of [fast, slow])
        await waitFor(
          () => fs.existsSync(path.join(s.h.castHome, 'run', 'state.sock')) || null,
          30_000,
          () => 'no socket',
        )
      await compareRoutes(withDaemon)
    } finally {
      for (const d of daemons) await d.stop()
    }
  }, 240_000)
})
