/**
 * `cast doctor` names the installed version of each agent CLI on PATH and warns when it is newer
 * than the version the conformance suite last passed with. A `claude` laid out as npm installs
 * one (node_modules/.bin/claude a symlink into its package, whose package.json holds the version;
 * the real CLIs are not installed by the project's `npm ci`), and a stand-in `claude` that reports
 * a newer version.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {json, makeHome, type TempHome} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

const homes: TempHome[] = []
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup()
})

describe('doctor: agent CLI versions', () => {
  it('reads the installed version of each CLI npm put on PATH', async () => {
    const h = makeHome()
    homes.push(h)
    // As `npm install @anthropic-ai/claude-code` lays it out; its bin would fail if run (the version is read, not asked).
    const modules = path.join(h.dir, 'node_modules')
    const pkgDir = path.join(modules, '@anthropic-ai', 'claude-code')
    fs.mkdirSync(path.join(modules, '.bin'), {recursive: true})
    fs.mkdirSync(pkgDir, {recursive: true})
    fs.writeFileSync(
      path.join(pkgDir, 'package.json'),
      JSON.stringify({bin: {claude: 'cli.js'}, name: '@anthropic-ai/claude-code', version: '2.1.328'}),
    )
    fs.writeFileSync(path.join(pkgDir, 'cli.js'), '#!/bin/sh\nexit 1\n', {mode: 0o755})
    fs.symlinkSync('../@anthropic-ai/claude-code/cli.js', path.join(modules, '.bin', 'claude'))
    const env = {...h.env, PATH: `${path.join(modules, '.bin')}:/usr/bin:/bin`}
    const r = await runCommand(['doctor', '--json'], {env})
    const claude = json<{adapters: {agent: string; cli: Record<string, unknown> | null}[]}>(r).adapters.find(
      (a) => a.agent === 'claude_code',
    )!
    const pkg = {version: '2.1.328'}
    expect(claude.cli).toMatchObject({bin: 'claude', installed: pkg.version})
    expect(['same', 'older', 'newer']).toContain(claude.cli!['compared'])
  })

  it('warns when a CLI is newer than the one the suite passed with, and says when one is missing', async () => {
    const h = makeHome()
    homes.push(h)
    const bin = path.join(h.dir, 'bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\necho "99.0.1 (Claude Code)"\n', {mode: 0o755})
    const env = {...h.env, PATH: `${bin}:/usr/bin:/bin`}
    const r = await runCommand(['doctor'], {env})
    expect(r.stdout).toMatch(/claude 99\.0\.1 — NEWER than \d+\.\d+\.\d+/)
    expect(r.stdout).toMatch(/warning: Claude Code 99\.0\.1 is newer than/)
    // The summary line counts it: never a bare "No problems found." with an untested CLI.
    expect(r.stdout).toMatch(/1 agent CLI newer than tested \(see the warnings above\)\./)
    expect(r.stdout).not.toMatch(/^No problems found\.$/m)
    expect(r.stdout).toContain('codex not on PATH')
    const j = json<{adapters: {agent: string; cli: Record<string, unknown> | null}[]}>(await runCommand(['doctor', '--json'], {env}))
    expect(j.adapters.find((a) => a.agent === 'claude_code')!.cli).toMatchObject({compared: 'newer', installed: '99.0.1'})
    expect(j.adapters.find((a) => a.agent === 'codex')!.cli).toMatchObject({compared: 'missing', path: null})
  })
})
