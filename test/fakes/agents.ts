/**
 * Real processes for the agent-verb tests: the fake Claude Code agent, a private tmux server per
 * test (its own TMUX_TMPDIR, so the "default" server cast talks to is the test's), and a config
 * that points cast's agent commands at the fake.
 */
import {execFileSync, spawn, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import {claudeTranscriptPath} from '../helpers/cli.js'

export const FAKE_CLAUDE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-claude.mjs')

/** `$CAST_HOME/config.json` with the fake agent as Claude Code's interactive, headless and resume command. */
export function writeFakeConfig(castHome: string, extra: Record<string, unknown> = {}): void {
  const fake = [process.execPath, FAKE_CLAUDE]
  const config = {
    agents: {
      claude: {
        headless: [...fake, '--session-id', '{id}', '-p', '--', '{prompt}'],
        interactive: [...fake, '--session-id', '{id}', '--', '{prompt}'],
        resume: [...fake, '--resume', '{id}', '-p', '--', '{prompt}'],
      },
    },
    ...extra,
  }
  fs.mkdirSync(castHome, {recursive: true})
  fs.writeFileSync(path.join(castHome, 'config.json'), JSON.stringify(config, null, 2))
}

export interface TmuxServer {
  /** Add to a command's environment so tmux (and cast's tmux calls) use this server. */
  readonly env: {TMUX_TMPDIR: string}
  tmux(args: readonly string[]): string
  kill(): void
}

/** A private tmux server with one detached session `base`, started with `env` as its global environment. */
export function startTmux(env: Record<string, string>): TmuxServer {
  // Short: the socket path must fit in sun_path.
  const dir = fs.mkdtempSync(path.join('/tmp', 'ctx-'))
  const full = {...env, TMUX_TMPDIR: dir}
  delete (full as Record<string, string | undefined>).TMUX
  const tmux = (args: readonly string[]): string =>
    execFileSync('tmux', args, {encoding: 'utf8', env: full, stdio: ['ignore', 'pipe', 'pipe']})
  tmux(['new-session', '-d', '-s', 'base', '-x', '200', '-y', '50'])
  return {
    env: {TMUX_TMPDIR: dir},
    kill() {
      try {
        tmux(['kill-server'])
      } catch {
        // already gone
      }

      fs.rmSync(dir, {force: true, recursive: true})
    },
    tmux,
  }
}

/** Start the fake agent in a new window of the server; returns its pane id. */
export function fakeInWindow(
  server: TmuxServer,
  o: {cwd: string; sessionId: string; prompt: string; env?: Record<string, string>},
): string {
  const vars = Object.entries(o.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  return server
    .tmux([
      'new-window',
      '-d',
      '-P',
      '-F',
      '#{pane_id}',
      '-t',
      'base:',
      '-c',
      o.cwd,
      ...vars,
      '--',
      process.execPath,
      FAKE_CLAUDE,
      '--session-id',
      o.sessionId,
      o.prompt,
    ])
    .trim()
}

export interface FakeProcess {
  readonly child: ChildProcess
  readonly out: () => string
  /** Type a line at its prompt. */
  say(line: string): void
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<string>
  stop(): Promise<void>
}

/** Run the fake agent as a child of the test (no terminal): its stdin is a pipe. */
export function startFake(o: {cwd: string; env: Record<string, string>; sessionId: string; prompt: string}): FakeProcess {
  const child = spawn(process.execPath, [FAKE_CLAUDE, '--session-id', o.sessionId, o.prompt], {
    cwd: o.cwd,
    env: o.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c) => (out += String(c)))
  child.stderr!.on('data', (c) => (out += String(c)))
  return {
    child,
    out: () => out,
    say: (line) => child.stdin!.write(line + '\n'),
    waitForOutput: (pattern, timeoutMs = 20_000) =>
      waitFor(
        () => (pattern.test(out) ? out : null),
        timeoutMs,
        () => `fake agent output: ${out}`,
      ),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}

/** Poll `check` until it returns something other than null/undefined/false. */
export async function waitFor<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 45_000,
  describe?: () => string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await check()
    if (v !== null && v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms${describe ? `: ${describe()}` : ''}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The user turns in a fake (or real) Claude Code transcript: prompt texts and answered questions. */
export function userTexts(home: string, cwd: string, sessionId: string): string[] {
  let text: string
  try {
    text = fs.readFileSync(claudeTranscriptPath(home, cwd, sessionId), 'utf8')
  } catch {
    return []
  }

  const out: string[] = []
  for (const line of text.split('\n')) {
    if (!line) continue
    const rec = JSON.parse(line) as {type?: string; message?: {content?: unknown}}
    if (rec.type !== 'user') continue
    const c = rec.message?.content
    if (typeof c === 'string') out.push(c)
    else if (Array.isArray(c))
      for (const b of c as {type: string; content?: string}[]) if (b.type === 'tool_result') out.push(`[answer] ${b.content ?? ''}`)
  }

  return out
}

/** A project directory for agents to run in. */
export function makeProject(dir: string, name = 'proj'): string {
  const p = path.join(dir, name)
  fs.mkdirSync(p, {recursive: true})
  return fs.realpathSync(p)
}
