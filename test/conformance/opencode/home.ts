/**
 * One OpenCode 1.18.33 home for the conformance suite: a HOME under an mkdtemp folder whose
 * `~/.config/opencode/opencode.json` names a custom `@ai-sdk/openai-compatible` provider at the
 * mock's base URL, the environment that keeps OpenCode offline, a private tmux server, and the
 * cast environment beside it (cast's bin first on PATH, CAST_HOME passed, so the agent's shell
 * tool can run `cast state`).
 *
 * OpenCode's first start installs its plugin package (`@opencode-ai/plugin`) from npm into
 * `~/.config/opencode/node_modules`. `warmConfig()` does that once per test file (an
 * `opencode run` in a scratch home); every home then starts from a copy of that folder.
 */
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {BIN} from '../../helpers/cli.js'
import {castEnv} from '../harness/cast.js'
import {startMock, sequence, text} from '../harness/mock/server.js'
import {type AgentPane, Tmux, descendants} from '../harness/tmux.js'
import {agentBin, agentVersion} from '../harness/agent-bin.js'

export const OPENCODE = agentBin('opencode')
export const VERSION = agentVersion('opencode-ai')
export const MODEL = 'mock-model'

export interface OcHome {
  readonly dir: string
  readonly home: string
  readonly project: string
  readonly tmux: Tmux
  readonly dataDir: string
  readonly db: string
  readonly log: string
  /** The environment `opencode` runs with. */
  agentEnv(extra?: Record<string, string>): Record<string, string>
  /** The environment cast runs with. */
  readonly cast: Record<string, string>
  /** Start the TUI in a new window of this home's tmux server (in `cwd`, default the project). */
  open(opts?: {cwd?: string; env?: Record<string, string>; name?: string}): AgentPane
  /** A second project folder in this home. */
  folder(name: string): string
  cleanup(): void
}

function writeConfig(home: string, mockUrl: string): void {
  const dir = path.join(home, '.config', 'opencode')
  fs.mkdirSync(dir, {recursive: true})
  fs.writeFileSync(
    path.join(dir, 'opencode.json'),
    JSON.stringify(
      {
        $schema: 'https://opencode.ai/config.json',
        autoupdate: false,
        model: `mock/${MODEL}`,
        provider: {
          mock: {
            models: {[MODEL]: {name: 'Mock Model'}},
            name: 'Mock',
            npm: '@ai-sdk/openai-compatible',
            options: {apiKey: 'sk-mock', baseURL: `${mockUrl}/v1`},
          },
        },
        share: 'disabled',
        small_model: `mock/${MODEL}`,
      },
      null,
      2,
    ),
  )
}

function baseEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    LANG: 'C.UTF-8',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    SHELL: '/bin/bash',
    USER: os.userInfo().username,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
  }
}

let warm: string | null = null

/** Install OpenCode's plugin package once (npm), in a scratch home; later homes copy it. */
export async function warmConfig(root: string): Promise<void> {
  if (warm) return
  const home = path.join(root, 'warm-home')
  const project = path.join(root, 'warm-project')
  fs.mkdirSync(home, {recursive: true})
  fs.mkdirSync(project, {recursive: true})
  const mock = await startMock(sequence([text('warm')]))
  try {
    writeConfig(home, mock.url)
    const env = {...baseEnv(home), PATH: `${path.dirname(OPENCODE)}:${process.env.PATH ?? '/usr/bin:/bin'}`, PWD: project}
    await new Promise<void>((resolve, reject) => {
      const child = spawn(OPENCODE, ['run', 'warm up'], {cwd: project, env, stdio: ['ignore', 'pipe', 'pipe']})
      child.stdout.resume()
      let err = ''
      child.stderr.on('data', (c) => (err += String(c)))
      const t = setTimeout(() => child.kill('SIGKILL'), 170_000)
      child.on('exit', (code) => {
        clearTimeout(t)
        if (code === 0) resolve()
        else reject(new Error(`opencode run (warm-up) exited ${code}: ${err}`))
      })
    })
  } finally {
    await mock.close()
  }

  // The install runs in the background and may outlive `opencode run`: wait for its lock file.
  const lock = path.join(home, '.config', 'opencode', 'package-lock.json')
  const end = Date.now() + 60_000
  while (!fs.existsSync(lock) && Date.now() < end) await new Promise((r) => setTimeout(r, 250))
  // Without it every home installs for itself (slower, still correct).
  if (fs.existsSync(lock)) warm = path.join(home, '.config', 'opencode')
}

export function makeHome(root: string, name: string, mockUrl: string): OcHome {
  const dir = fs.mkdtempSync(path.join(root, `${name}-`))
  const home = path.join(dir, 'home')
  const project = path.join(dir, 'project')
  fs.mkdirSync(home, {recursive: true})
  fs.mkdirSync(project, {recursive: true})
  fs.writeFileSync(path.join(project, 'README.md'), '# a project\n')
  if (warm) fs.cpSync(warm, path.join(home, '.config', 'opencode'), {recursive: true})
  writeConfig(home, mockUrl)
  const tmux = Tmux.start(path.join(dir, 'tmux'), `oc-${name}`)
  const cast = castEnv(home, tmux.env)
  // `cast` as a user has it on PATH: the build under test (CAST_TEST_ROOT), run by this node.
  const shims = path.join(dir, 'bin')
  fs.mkdirSync(shims)
  fs.writeFileSync(path.join(shims, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  const binDir = `${shims}:${path.dirname(BIN)}`
  const dataDir = path.join(home, '.local', 'share', 'opencode')
  const panes: AgentPane[] = []
  const agentEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
    ...baseEnv(home),
    CAST_HOME: cast['CAST_HOME']!,
    CAST_USER: cast['CAST_USER']!,
    PATH: `${binDir}:${path.dirname(OPENCODE)}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    ...extra,
  })
  return {
    agentEnv,
    cast: {...cast, PATH: `${binDir}:${cast['PATH']}`},
    cleanup() {
      for (const p of panes) {
        for (const pid of [p.pid, ...descendants(p.pid)]) {
          try {
            process.kill(pid, 'SIGKILL')
          } catch {
            /* gone */
          }
        }
      }

      tmux.stop()
      fs.rmSync(dir, {force: true, recursive: true})
    },
    dataDir,
    db: path.join(dataDir, 'opencode.db'),
    dir,
    folder(n) {
      const f = path.join(dir, n)
      fs.mkdirSync(f, {recursive: true})
      return f
    },
    home,
    log: path.join(dataDir, 'log', 'opencode.log'),
    open(opts = {}) {
      const cwd = opts.cwd ?? project
      const pane = tmux.open([OPENCODE], {cwd, env: agentEnv({PWD: cwd, ...opts.env}), name: opts.name})
      panes.push(pane)
      return pane
    },
    project,
    tmux,
  }
}

/** The TUI is up and its prompt takes input. */
export const READY = /ctrl\+p commands/
