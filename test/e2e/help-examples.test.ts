/**
 * Issue 13 point 7: every example in `--help` runs, as written, against the demo store.
 *
 * The examples are read from oclif.manifest.json (written by `npm run build`), `<%= config.bin %>`
 * becomes `cast` (a wrapper on PATH that runs this checkout's bin/run.js) and `<%= command.id %>`
 * the command, and each runs through `bash -c` exactly as a person would paste it (pipes, `$(…)`,
 * `>>` included).
 *
 * The world each example sees:
 * - the demo store: `cast demo --keep --json` once, into a sandbox TMPDIR, on a fixed CAST_NOW
 *   (the same clock for every example); before each example the demo folder is put back from a
 *   snapshot, so an example that changes the store (snooze, kill, dismiss, own …) cannot break a
 *   later one and the order does not matter. Measured (2 cores, load ~15): restoring the
 *   snapshot takes 0.34 s (median of 20), building the demo again 1.0-2.4 s, so the snapshot.
 * - HOME is the demo's home: `hooks install`, `agent-instructions >> AGENTS.md` (run in a fresh
 *   empty folder) and the like write only there.
 * - the agent CLIs are the fake Claude Code of test/fakes (config `agents` in the demo's
 *   CAST_HOME), so `send` (which resumes the demo's dead sessions headless) and `spawn` start the
 *   fake, never a real agent; tmux is a private server (its own TMUX_TMPDIR, killed after each
 *   example).
 * - CAST_SESSION names the demo session kdsmarj: the agent-side verbs (`state`, `decide`,
 *   `schedule` without a session) run as from inside that agent.
 *
 * What an example is expected to do, written in its description:
 * - `(exit N)` — exactly that, in parentheses: the example exits N on the demo store (e.g. 5:
 *   `approve` refuses, the demo's agents have no live terminal; 124: a `wait` that times out).
 *   A conditional "exit 5 otherwise" is documentation only. Without `(exit N)` the example must
 *   exit 0.
 * - "until stopped" — a long-running command (daemon, notify, `sessions -w`): the test waits until
 *   it holds the ingester lease with its watcher ready, sends SIGINT, and expects exit 0.
 * - "interactive" — a terminal UI (`inbox`): run in a pseudo-terminal (`script`), the test types
 *   `q` once it has drawn, and expects exit 0.
 * An example that exits 0 must not report an error on stderr (or an error envelope under --json).
 *
 * Where it runs: an example that is one plain `cast …` command (no pipe, substitution, redirection,
 * variable or glob) runs in the test process (test/helpers/run-command.ts) with the words bash
 * splits it into, which answers with the same stdout, stderr and exit code as the child; that
 * saves a Node and oclif start-up per example. The rest run through bash, and so do the commands
 * whose answer is the process itself or that start processes: `sessions` and `status` (answered
 * in bin/run.js before oclif), `version`, `demo`, `daemon`, `send`, `spawn`, `kill`, and `team`.
 */
import {execFileSync, spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {FAKE_CLAUDE, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, ROOT, runCast, type TempHome, waitForWatcher} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

interface Example {
  readonly id: string
  readonly command: string
  readonly description: string | null
}

function examples(): Example[] {
  const file = path.join(ROOT, 'oclif.manifest.json')
  if (!fs.existsSync(file)) throw new Error(`${file} is missing: run npm run build first`)
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    commands: Record<string, {examples?: Array<string | {command: string; description?: string}>}>
  }
  const out: Example[] = []
  for (const [id, c] of Object.entries(manifest.commands).sort(([a], [b]) => a.localeCompare(b))) {
    for (const e of c.examples ?? []) {
      const raw = typeof e === 'string' ? {command: e, description: null} : {command: e.command, description: e.description ?? null}
      out.push({
        command: raw.command.replaceAll('<%= config.bin %>', 'cast').replaceAll('<%= command.id %>', id.replaceAll(':', ' ')),
        description: raw.description,
        id,
      })
    }
  }

  return out
}

export function expectedExit(description: string | null): number {
  const m = /\(exit (\d+)\)/.exec(description ?? '')
  return m ? Number(m[1]) : 0
}

/** stderr lines that report a failure (cast's own progress and status lines do not). */
const ERROR_WORDS =
  /\b(error|errors|failed|failure|warning|cannot|could not|unknown|invalid|refused|not found|no such|exception|unexpected)\b|^\s+at .+:\d+:\d+\)?$/im

const ALL = examples()

/** `cast team join` needs a PostgreSQL server at the URL it is given; the demo has none. */
const NEEDS_TEAM_SERVER = new Set(['team:join'])

/**
 * Teammates' keys and the admin's verbs need a team (the demo has joined none): `team keys`,
 * `team trust`, `team admit`, `team members` and `team remove` say so with one line (the JSON
 * envelope under --json) and exit 2; `team untrust` of a machine this store never trusted exits 3.
 */
const NEEDS_A_TEAM: ReadonlyMap<string, [number, RegExp]> = new Map([
  ['team:keys', [2, /^cast: Not in a team\./]],
  ['team:trust', [2, /^cast: Not in a team\./]],
  ['team:untrust', [3, /is not trusted on this machine/]],
  ['team:admit', [2, /No team store: join one first/]],
  ['team:members', [2, /No team store: join one first/]],
  ['team:remove', [2, /No team store: join one first/]],
])

describe('every example in --help runs against the demo store', () => {
  let h: TempHome
  let demo: string
  let snapshot: string
  let env: Record<string, string>
  let runs = 0

  beforeAll(async () => {
    h = makeHome()
    const tmp = path.join(h.dir, 'tmp')
    fs.mkdirSync(tmp)
    const now = String(Date.now())
    const built = await runCast(['demo', '--keep', '--json'], {env: {...h.env, CAST_NOW: now, TMPDIR: tmp}, timeout: 120_000})
    expect(built.code, built.stderr).toBe(0)
    const base = json<{cast_home: string; home: string}>(built)
    demo = path.dirname(base.cast_home)
    writeFakeConfig(base.cast_home)
    snapshot = path.join(h.dir, 'snapshot')
    fs.cpSync(demo, snapshot, {recursive: true})
    const bin = path.join(h.dir, 'bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'cast'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, {mode: 0o755})
    // Never a real agent: the fake is configured for Claude Code; any other agent CLI an example
    // reached would be one of these stubs, which fail loudly. node_modules/.bin (where vitest's
    // PATH has the real agents' CLIs) is left out.
    for (const name of ['claude', 'codex', 'gemini', 'copilot', 'cursor-agent', 'opencode', 'pi', 'notify-send', 'osascript']) {
      fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "stub ${name}: an example reached a real program" >&2\nexit 97\n`, {
        mode: 0o755,
      })
    }

    const PATH = [
      bin,
      path.dirname(process.execPath),
      ...(process.env.PATH ?? '/usr/bin:/bin').split(':').filter((d) => !d.includes('node_modules')),
    ].join(':')
    const sessions = json<{sessions: Array<{id: string; short_id: string}>}>(
      await runCast(['sessions', '--json', '--all'], {env: {...h.env, CAST_HOME: base.cast_home, CAST_NOW: now, HOME: base.home}}),
    )
    const self = sessions.sessions.find((s) => s.short_id === 'kdsmarj')
    expect(self, 'the demo session kdsmarj').toBeDefined()
    env = {
      ...h.env,
      CAST_HOME: base.cast_home,
      CAST_NOW: now,
      CAST_SESSION: self!.id,
      FAKE_DELAY_MS: '50',
      HOME: base.home,
      PATH,
      TMPDIR: tmp,
    }
    delete env.XDG_DATA_HOME
    delete env.XDG_CONFIG_HOME
    expect(fs.existsSync(FAKE_CLAUDE)).toBe(true)
  }, 180_000)

  afterAll(() => {
    h?.cleanup()
  })

  it('reads the examples of every command from the manifest', () => {
    expect(ALL.length).toBeGreaterThan(50)
    const ids = new Set(ALL.map((e) => e.id))
    for (const id of ['sessions', 'decide', 'kill', 'send', 'wait', 'schedule', 'snooze', 'team:join']) expect(ids.has(id), id).toBe(true)
  })

  for (const ex of ALL) {
    it(`${ex.command}`, async () => {
      // The pristine demo, a fresh working folder, a private tmux socket folder.
      fs.rmSync(demo, {force: true, recursive: true})
      fs.cpSync(snapshot, demo, {recursive: true})
      const cwd = path.join(h.dir, `work-${++runs}`)
      fs.mkdirSync(cwd)
      const tmux = fs.mkdtempSync(path.join('/tmp', 'cth-'))
      const e = {...env, TMUX_TMPDIR: tmux}
      try {
        const r = await runExample(ex, e, cwd)
        if (NEEDS_TEAM_SERVER.has(ex.id)) {
          // The one exception: the demo has no team server. It runs as written and fails on the
          // connection with one line (not on its arguments: no usage error).
          expect(r.code, `${ex.command}\n${r.stderr}`).toBe(1)
          expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1)
          expect(r.stderr).toMatch(/^cast: Cannot join postgres:\/\/\w+:\*\*\*@db\.example\.com\/cast: /)
          return
        }

        const team = NEEDS_A_TEAM.get(ex.id)
        if (team) {
          expect(r.code, `${ex.command}\n${r.stderr}`).toBe(team[0])
          const said = r.stderr.trim() === '' ? r.stdout : r.stderr
          expect(said.trim().split('\n'), said).toHaveLength(1)
          expect(said).toMatch(team[1])
          return
        }

        const want = expectedExit(ex.description)
        const report = `${ex.command}\nexit ${r.code} (want ${want})\nstdout: ${r.stdout.slice(0, 2000)}\nstderr: ${r.stderr.slice(0, 2000)}`
        expect(r.code, report).toBe(want)
        if (want === 0) {
          expect(ERROR_WORDS.test(r.stderr), report).toBe(false)
          expect(/^\s*\{\s*"error"\s*:/.test(r.stdout), report).toBe(false)
        }
      } finally {
        // A server the example started has its socket in the private folder.
        if (fs.readdirSync(tmux).length > 0) {
          try {
            execFileSync('tmux', ['kill-server'], {env: e, stdio: 'ignore'})
          } catch {
            // it had already gone
          }
        }

        fs.rmSync(tmux, {force: true, recursive: true})
        // What an example left running in the background (send's and spawn's headless agent):
        // processes carrying this demo's CAST_HOME, so ones this test started, ended by pid.
        reap(env.CAST_HOME!)
      }
    }, 120_000)
  }
})

/** SIGKILL every process whose environment has CAST_HOME=castHome, and wait until they are gone. */
function reap(castHome: string): void {
  const mark = `CAST_HOME=${castHome}`
  const pids: number[] = []
  for (const name of fs.readdirSync('/proc')) {
    const pid = Number(name)
    if (!Number.isInteger(pid) || pid === process.pid) continue
    try {
      if (fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(mark)) pids.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }

  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }

  for (const pid of pids) {
    for (let i = 0; i < 200 && fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(readStatus(pid)); i++) execFileSync('sleep', ['0.01'])
  }
}

function readStatus(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return ''
  }
}

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Commands whose answer is the process itself (bin/run.js's fast paths, the version) or that start or signal processes. */
const SPAWNED = /^(sessions|status|version|demo|daemon|send|spawn|kill|team)(:|$)/

/** The words bash splits a plain `cast …` example into (after `cast`), or null when it is more than one plain command. */
function plainArgs(ex: Example): string[] | null {
  if (SPAWNED.test(ex.id) || !/^cast( |$)/.test(ex.command) || /[|$`<>;&(){}[\]\\*?~#!\n]/.test(ex.command)) return null
  if (/until stopped|\binteractive\b/i.test(ex.description ?? '')) return null
  const rest = ex.command.slice('cast'.length).trim()
  if (rest === '') return []
  return execFileSync('bash', ['-c', `printf '%s\\0' ${rest}`], {encoding: 'utf8'})
    .slice(0, -1)
    .split('\0')
}

function runExample(ex: Example, env: Record<string, string>, cwd: string): Promise<Ran> {
  const d = ex.description ?? ''
  if (/\binteractive\b/i.test(d)) return interactive(ex.command, env, cwd)
  const args = plainArgs(ex)
  if (args) return runCommand(args, {cwd, env})
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', ex.command], {cwd, detached: true, env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c) => (stdout += String(c)))
    child.stderr.on('data', (c) => (stderr += String(c)))
    const limit = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // gone
      }
    }, 90_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(limit)
      resolve({code: code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : null), stderr, stdout})
    })
    if (/until stopped/i.test(d)) {
      // Ready: it holds the ingester lease with its watcher up (it listens for SIGINT before it
      // takes the lease).
      waitForWatcher(env.CAST_HOME!, 60_000).then(
        () => process.kill(-child.pid!, 'SIGINT'),
        (error: Error) => {
          stderr += `\n[test] ${error.message}`
          process.kill(-child.pid!, 'SIGKILL')
        },
      )
    }
  })
}

/** A terminal UI in a pseudo-terminal: type q once it has drawn something. */
function interactive(command: string, env: Record<string, string>, cwd: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd,
      env: {...env, COLUMNS: '100', LINES: '40', TERM: 'xterm'},
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    let typed = false
    child.stdout.on('data', (c) => {
      stdout += String(c)
      if (!typed && /needs input/i.test(stdout)) {
        typed = true
        child.stdin.write('q')
      }
    })
    child.stderr.on('data', (c) => (stderr += String(c)))
    const limit = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(limit)
      resolve({code, stderr, stdout})
    })
  })
}
