/**
 * One Claude Code home for the conformance suite: a HOME under an mkdtemp folder with
 * `$HOME/.claude.json` pre-seeded (onboarding done, the project folder trusted, the fake key
 * approved, the auto-mode nudge seen), the environment that points `claude` at the mock, and
 * the cast environment beside it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {BIN} from '../../helpers/cli.js'
import {castEnv} from '../harness/cast.js'
import {Tmux} from '../harness/tmux.js'
import {agentBin} from '../harness/agent-bin.js'

export const CLAUDE = agentBin('claude')
export const API_KEY = 'sk-ant-api03-conformance-mock-key-0000000000000000000000000000AA'

export interface ClaudeHome {
  readonly dir: string
  readonly home: string
  readonly project: string
  readonly castHome: string
  readonly tmux: Tmux
  /** The environment `claude` runs with (also cast's bin dir first on PATH). */
  agentEnv(mockUrl: string, extra?: Record<string, string>): Record<string, string>
  /** The environment cast runs with. */
  readonly cast: Record<string, string>
  cleanup(): void
}

export function makeClaudeHome(name: string): ClaudeHome {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `cast-cc-${name}-`))
  const home = path.join(dir, 'home')
  const project = path.join(dir, 'project')
  fs.mkdirSync(home, {recursive: true})
  fs.mkdirSync(project, {recursive: true})
  fs.writeFileSync(path.join(project, 'README.md'), '# a project\n')
  fs.writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({
      autoUpdates: false,
      customApiKeyResponses: {approved: [API_KEY.slice(-20)], rejected: []},
      hasCompletedOnboarding: true,
      hasSeenAutoDefaultNudge: true,
      lastOnboardingVersion: '2.1.328',
      numStartups: 1,
      projects: {
        [project]: {allowedTools: [], hasCompletedProjectOnboarding: true, hasTrustDialogAccepted: true, projectOnboardingSeenCount: 1},
      },
      theme: 'dark',
    }),
  )
  const tmux = Tmux.start(path.join(dir, 'tmux'), name)
  const cast = castEnv(home, tmux.env)
  // `cast` as a user has it on PATH: the build under test (CAST_TEST_ROOT), run by this node.
  const shims = path.join(dir, 'bin')
  fs.mkdirSync(shims)
  fs.writeFileSync(path.join(shims, 'cast'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`, {mode: 0o755})
  const binDir = `${shims}:${path.dirname(BIN)}`
  return {
    agentEnv: (mockUrl, extra = {}) => ({
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_BASE_URL: mockUrl,
      CAST_HOME: cast['CAST_HOME']!,
      CAST_USER: cast['CAST_USER']!,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_TELEMETRY: '1',
      HOME: home,
      LANG: 'C.UTF-8',
      PATH: `${binDir}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      SHELL: '/bin/bash',
      USER: os.userInfo().username,
      ...extra,
    }),
    cast: {...cast, PATH: `${binDir}:${cast['PATH']}`},
    castHome: cast['CAST_HOME']!,
    cleanup() {
      tmux.stop()
      fs.rmSync(dir, {force: true, recursive: true})
    },
    dir,
    home,
    project,
    tmux,
  }
}
