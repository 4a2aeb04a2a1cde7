/**
 * One Codex CLI 0.169 home for the conformance suite: a HOME under an mkdtemp folder whose
 * `~/.codex/config.toml` points Codex at the mock (`model_provider = "mock"`, Responses wire API,
 * the key from `MOCK_API_KEY`), trusts the project folder and asks before escalated commands
 * (`approval_policy = "on-request"`, `sandbox_mode = "workspace-write"`: 0.169 refuses
 * `untrusted`). The TUI runs in a private tmux server; cast runs with `castEnv(home, tmux.env)`.
 *
 * Codex 0.169's TUI starts an app-server daemon that outlives it (and a pid-update loop), so
 * cleanup kills every process whose command line names this home, not only the tmux server.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {BIN} from '../../helpers/cli.js'
import {castEnv} from '../harness/cast.js'
import type {Mock} from '../harness/mock/server.js'
import {type AgentPane, Tmux} from '../harness/tmux.js'
import {agentBin, agentVersion} from '../harness/agent-bin.js'

export const CODEX = agentBin('codex')
export const CODEX_VERSION = agentVersion('@openai/codex')

export interface CodexOptions {
  /** `approval_policy` (default on-request). */
  readonly approval?: 'on-request' | 'never' | 'on-failure'
  /** `sandbox_mode` (default workspace-write). */
  readonly sandbox?: 'workspace-write' | 'danger-full-access' | 'read-only'
  /** Provider retry limits (Codex's defaults retry for a long time). */
  readonly retries?: number
  /** Extra TOML appended at the end of config.toml. */
  readonly extraToml?: string
}

export interface CodexHome {
  readonly dir: string
  readonly home: string
  readonly codexHome: string
  readonly work: string
  readonly tmux: Tmux
  readonly cast: Record<string, string>
  /** The environment `codex` runs with: cast's bin dir first on PATH, CAST_HOME passed. */
  readonly agentEnv: Record<string, string>
  /** Start the TUI in a new pane (`args` may end with the first prompt) and wait for its composer. */
  tui(args?: readonly string[], cwd?: string): Promise<AgentPane>
  /** `codex exec PROMPT` as a child process (headless). */
  exec(prompt: string): ChildProcess
  rollouts(): string[]
  /** Every line of every rollout, parsed. */
  lines(): Record<string, any>[]
  daemonPid(): number | null
  cleanup(): void
}

/** The composer line: always on screen in 0.169, busy or not. */
export const COMPOSER =
  /› (Ask Codex to do anything|Find and fix|Explain this|Write tests|Improve documentation|Summarize|Implement|Use \/)/

/**
 * The TUI installs its app-server daemon into `$CODEX_HOME/packages/` (a 294 MB binary and a
 * 70 MB helper) on first start, which on a loaded 2-core machine takes longer than the TUI's
 * patience. The first home's install is kept (hard links) and linked into every later home.
 */
let packagesTemplate: string | null = null

export function dropPackagesTemplate(): void {
  if (packagesTemplate) fs.rmSync(path.dirname(packagesTemplate), {force: true, recursive: true})
  packagesTemplate = null
}

function keepPackages(codexHome: string): void {
  if (packagesTemplate) return
  const keep = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-cx-packages-'))
  const r = spawnSync('cp', ['-al', path.join(codexHome, 'packages'), path.join(keep, 'packages')])
  if (r.status === 0) packagesTemplate = path.join(keep, 'packages')
  else fs.rmSync(keep, {force: true, recursive: true})
}

/** The footer's `? for shortcuts` appears once the TUI's thread has started (the composer comes earlier). */
export const READY = /\? for shortcuts/

export function makeCodexHome(name: string, mock: Mock, opts: CodexOptions = {}): CodexHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cast-cx-${name}-`))
  const home = path.join(dir, 'home')
  const codexHome = path.join(home, '.codex')
  const work = path.join(dir, 'work')
  fs.mkdirSync(codexHome, {recursive: true})
  if (packagesTemplate) spawnSync('cp', ['-al', packagesTemplate, path.join(codexHome, 'packages')])
  fs.mkdirSync(work, {recursive: true})
  fs.writeFileSync(path.join(work, 'README.md'), '# a project\n')
  const retries = opts.retries ?? 1
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "mock-model"',
      'model_provider = "mock"',
      `approval_policy = "${opts.approval ?? 'on-request'}"`,
      `sandbox_mode = "${opts.sandbox ?? 'workspace-write'}"`,
      'check_for_update_on_startup = false',
      '',
      '[model_providers.mock]',
      'name = "mock"',
      `base_url = "${mock.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "MOCK_API_KEY"',
      `request_max_retries = ${retries}`,
      `stream_max_retries = ${retries}`,
      'stream_idle_timeout_ms = 300000',
      '',
      `[projects."${work}"]`,
      'trust_level = "trusted"',
      '',
      opts.extraToml ?? '',
    ].join('\n'),
  )
  const tmux = Tmux.start(path.join(dir, 'tmux'), `cx-${name}`)
  const cast = castEnv(home, tmux.env)
  // `cast` on the agent's PATH, as a user's install puts it: a shim running this build's bin.
  const binDir = path.join(dir, 'bin')
  fs.mkdirSync(binDir)
  fs.writeFileSync(path.join(binDir, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  const agentEnv: Record<string, string> = {
    CAST_HOME: cast['CAST_HOME']!,
    CAST_USER: cast['CAST_USER']!,
    HOME: home,
    LANG: 'C.UTF-8',
    MOCK_API_KEY: 'sk-mock-conformance',
    PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    SHELL: '/bin/bash',
    USER: os.userInfo().username,
  }
  const children: ChildProcess[] = []
  const rollouts = (): string[] => {
    const out: string[] = []
    const walk = (d: string): void => {
      let entries: fs.Dirent[] = []
      try {
        entries = fs.readdirSync(d, {withFileTypes: true})
      } catch {
        return
      }

      for (const e of entries) {
        const p = path.join(d, e.name)
        if (e.isDirectory()) walk(p)
        else if (/^rollout-.*\.jsonl$/.test(e.name)) out.push(p)
      }
    }

    walk(path.join(codexHome, 'sessions'))
    return out.sort()
  }

  return {
    agentEnv,
    cast,
    cleanup() {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
      tmux.stop()
      killUnder(dir)
      fs.rmSync(dir, {force: true, recursive: true})
    },
    codexHome,
    daemonPid() {
      try {
        return (JSON.parse(fs.readFileSync(path.join(codexHome, 'app-server-daemon', 'daemon.pid'), 'utf8')) as {pid: number}).pid
      } catch {
        return null
      }
    },
    dir,
    exec(prompt) {
      const child = spawn(CODEX, ['exec', '--skip-git-repo-check', prompt], {cwd: work, env: agentEnv, stdio: ['ignore', 'pipe', 'pipe']})
      child.stdout!.resume()
      child.stderr!.resume()
      children.push(child)
      return child
    },
    home,
    lines() {
      const out: Record<string, any>[] = []
      for (const f of rollouts()) {
        for (const l of fs.readFileSync(f, 'utf8').split('\n')) {
          if (!l.trim()) continue
          try {
            out.push(JSON.parse(l))
          } catch {
            /* a line being written */
          }
        }
      }

      return out
    },
    rollouts,
    async tui(args = [], cwd = work) {
      const pane = tmux.open([CODEX, ...args], {cwd, env: agentEnv})
      await tmux.waitFor(pane, COMPOSER, 120_000)
      // A prompt on the command line is submitted by the TUI itself once its thread is ready (an
      // Enter typed before that is dropped); with none, wait for the ready footer.
      if (!args.some((a) => !a.startsWith('-'))) await tmux.waitFor(pane, READY, 180_000)
      keepPackages(codexHome)
      return pane
    },
    tmux,
    work,
  }
}

/**
 * Type a prompt and press Enter until Codex takes it. The composer is drawn before the TUI's
 * thread is ready, and an Enter pressed then is dropped with the text left in the composer:
 * Enter is pressed again while the composer (the last `›` line) still holds the text.
 */
export async function submit(tmux: Tmux, pane: AgentPane, prompt: string, timeoutMs = 30_000): Promise<void> {
  tmux.type(pane, prompt)
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1000))
    const composer = tmux
      .capture(pane)
      .split('\n')
      .filter((l) => l.startsWith('›'))
      .at(-1)
    if (composer === undefined || !composer.includes(prompt)) return
    tmux.keys(pane, 'Enter')
  }

  throw new Error(`codex never took the prompt ${JSON.stringify(prompt)}:\n${tmux.capture(pane)}`)
}

/** `cast hooks install codex`, then Codex's own review dialog answered as a user would: "Trust all and continue". */
export async function trustHooks(tmux: Tmux, pane: AgentPane): Promise<void> {
  await tmux.waitFor(pane, /Hooks need review/, 120_000)
  await tmux.waitFor(pane, /2\. Trust all and continue/)
  tmux.keys(pane, 'Down')
  await new Promise((r) => setTimeout(r, 300))
  tmux.keys(pane, 'Enter')
}

/** kill -9 every process whose command line or cwd lies under `dir` (the daemon and its helpers). */
export function killUnder(dir: string): void {
  for (const pid of pidsUnder(dir)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      /* gone */
    }
  }
}

export function pidsUnder(dir: string): number[] {
  const out: number[] = []
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p) || Number(p) === process.pid) continue
    try {
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8')
      let cwd = ''
      try {
        cwd = fs.readlinkSync(`/proc/${p}/cwd`)
      } catch {
        /* another user's */
      }

      if (cmd.includes(dir) || cwd.startsWith(dir)) out.push(Number(p))
    } catch {
      /* gone */
    }
  }

  return out
}

/** The native TUI process under a pane (the npm wrapper is node; its child is the Rust binary). */
export function tuiPid(panePid: number): number | null {
  const r = spawnSync('ps', ['-e', '-o', 'pid=,ppid=,args='], {encoding: 'utf8'})
  for (const line of r.stdout.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line)
    if (m && Number(m[2]) === panePid && /\/bin\/codex(\s|$)/.test(m[3]!) && !/app-server/.test(m[3]!)) return Number(m[1])
  }

  return null
}
