/**
 * Run the built CLI (`bin/run.js`, after `npm run build`) as a user would: a real child process
 * with its own environment, over a temporary HOME and CAST_HOME.
 */
import {execFile, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The package to run: CAST_TEST_ROOT (a private build from scripts/build-to) or this checkout. */
export const ROOT = process.env.CAST_TEST_ROOT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const BIN = path.join(ROOT, 'bin', 'run.js')
export const HOOK_BIN = path.join(ROOT, 'bin', 'cast-hook')

export interface TempHome {
  readonly dir: string
  readonly home: string
  readonly castHome: string
  readonly env: Record<string, string>
  cleanup(): void
}

/** A fresh HOME (agents' files go under it), CAST_HOME and tmux socket folder, with a fixed identity. */
export function makeHome(user = 'me@example.com'): TempHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-test-'))
  const home = path.join(dir, 'home')
  const castHome = path.join(dir, 'cast')
  fs.mkdirSync(home, {recursive: true})
  const env: Record<string, string> = {
    CAST_HOME: castHome,
    CAST_USER: user,
    HOME: home,
    NO_COLOR: '1',
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    // A tmux socket folder of its own: cast's screen sweep never reads the developer's tmux servers
    // (their agents' panes), and a test's tmux server goes here unless it names its own.
    TMUX_TMPDIR: path.join(dir, 'tmux'),
    // cast state waits this long for a daemon's reply (3 s by default): a loaded CI machine can
    // keep a daemon's pass busy longer, and the tests that expect the socket route would see the
    // local one.
    CAST_STATE_WAIT_MS: '30000',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
  }
  // A detached child a command started (a headless agent, a backfill) may still be writing under
  // it: retry on ENOTEMPTY/EBUSY instead of failing the test in its cleanup.
  return {castHome, cleanup: () => fs.rmSync(dir, {force: true, maxRetries: 10, recursive: true, retryDelay: 100}), dir, env, home}
}

/** How long one cast command may run before the test calls it hung (CAST_TEST_TIMEOUT_MS raises it). */
const DEFAULT_TIMEOUT_MS = Number(process.env.CAST_TEST_TIMEOUT_MS) || 30_000

export interface RunResult {
  readonly stdout: string
  readonly stderr: string
  readonly code: number
}

export function runCast(
  args: readonly string[],
  options: {env: Record<string, string>; input?: string; timeout?: number; cwd?: string},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      {cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024, timeout: options.timeout ?? DEFAULT_TIMEOUT_MS},
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as {code?: unknown}).code === 'number' ? (error as {code: number}).code : 1) : 0
        resolve({code, stderr, stdout})
      },
    )
    if (options.input !== undefined) child.stdin?.end(options.input)
    else child.stdin?.end()
  })
}

/** Parse `--json` output. */
export function json<T = any>(r: RunResult): T {
  try {
    return JSON.parse(r.stdout) as T
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`)
  }
}

const started = new Set<ChildProcess>()

/** Kill every long-running command a test started and did not stop (call in afterEach). */
export function killStarted(): void {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL')
  started.clear()
}

/** Start a long-running cast command (e.g. `sessions -w --json`) and read its lines as they come. */
export function startCast(
  args: readonly string[],
  env: Record<string, string>,
): {child: ChildProcess; lines: string[]; nextLine(timeoutMs?: number): Promise<string>; stop(): Promise<number | null>} {
  const child = spawn(process.execPath, [BIN, ...args], {env, stdio: ['ignore', 'pipe', 'pipe']})
  started.add(child)
  const lines: string[] = []
  const waiters: ((l: string) => void)[] = []
  let buf = ''
  let read = 0
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buf += chunk
    let i
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      lines.push(line)
      const w = waiters.shift()
      if (w) {
        read++
        w(line)
      }
    }
  })
  let stderr = ''
  child.stderr!.on('data', (c) => (stderr += String(c)))
  return {
    child,
    lines,
    nextLine(timeoutMs = 30_000) {
      if (read < lines.length) return Promise.resolve(lines[read++]!)
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`no line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs)
        waiters.push((l) => {
          clearTimeout(t)
          resolve(l)
        })
      })
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill('SIGTERM')
      })
    },
  }
}

/** Write a file, creating its folders. */
export function writeFile(p: string, text: string): void {
  fs.mkdirSync(path.dirname(p), {recursive: true})
  fs.writeFileSync(p, text)
}

/** A minimal Claude Code transcript line set, for tests that need a session quickly. */
export function claudeLines(opts: {
  sessionId: string
  cwd: string
  prompt: string
  at: Date
  settled?: boolean
  question?: string
}): string {
  const t = (ms: number): string => new Date(opts.at.getTime() + ms).toISOString()
  const base = {cwd: opts.cwd, isSidechain: false, sessionId: opts.sessionId, userType: 'external', version: '2.1.100'}
  const lines: unknown[] = [
    {...base, message: {content: opts.prompt, role: 'user'}, parentUuid: null, timestamp: t(0), type: 'user', uuid: 'u1'},
  ]
  if (opts.question) {
    lines.push({
      ...base,
      message: {
        content: [{id: 'toolu_q1', input: {questions: [{question: opts.question}]}, name: 'AskUserQuestion', type: 'tool_use'}],
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        type: 'message',
      },
      parentUuid: 'u1',
      timestamp: t(1000),
      type: 'assistant',
      uuid: 'a1',
    })
  } else if (opts.settled !== false) {
    lines.push({
      ...base,
      message: {
        content: [{text: 'Done.', type: 'text'}],
        id: 'msg_1',
        model: 'claude-sonnet-4-5',
        role: 'assistant',
        stop_reason: 'end_turn',
        type: 'message',
      },
      parentUuid: 'u1',
      timestamp: t(1000),
      type: 'assistant',
      uuid: 'a1',
    })
  }

  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n'
}

export function claudeTranscriptPath(home: string, cwd: string, sessionId: string): string {
  return path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9-]/g, '-'), `${sessionId}.jsonl`)
}

/** Wait until a live ingester (cast daemon, cast sessions -w) holds the lease and its watcher is ready. */
export async function waitForWatcher(castHome: string, timeoutMs = 20_000): Promise<void> {
  const {default: Database} = await import('better-sqlite3')
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const db = new Database(path.join(castHome, 'cast.db'), {fileMustExist: true, readonly: true})
      try {
        const row = db.prepare(`SELECT info FROM leases WHERE name = 'ingester'`).get() as {info: string} | undefined
        if (row && (JSON.parse(row.info) as {ready?: boolean}).ready) return
      } finally {
        db.close()
      }
    } catch {
      // not created yet
    }

    await new Promise((r) => setTimeout(r, 100))
  }

  throw new Error('the watcher did not become ready')
}
