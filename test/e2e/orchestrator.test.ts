/**
 * The example orchestrator end to end: real tmux, the fake agent as Claude Code, the built CLI.
 */
import {execFile} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {makeProject, startTmux, type TmuxServer, userTexts, writeFakeConfig} from '../fakes/agents.js'
import {BIN, json, makeHome, runCast, type TempHome} from '../helpers/cli.js'

const EXAMPLE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../examples/orchestrator.mjs')

describe('examples/orchestrator.mjs', () => {
  let h: TempHome
  let server: TmuxServer
  let env: Record<string, string>
  let proj: string

  beforeEach(() => {
    h = makeHome()
    proj = makeProject(h.dir)
    writeFakeConfig(h.castHome)
    server = startTmux({...h.env, FAKE_DELAY_MS: '300'})
    env = {...h.env, ...server.env}
  })

  afterEach(() => {
    server.kill()
    h.cleanup()
  })

  it('spawns two workers, follows them, sends each its next steps, and leaves a question for a person (send never types into a question)', async () => {
    const r = await new Promise<{code: number; stdout: string; stderr: string}>((resolve) => {
      execFile(
        process.execPath,
        [EXAMPLE, '--label', 'fleet', '--cwd', proj, '--timeout', '150'],
        {cwd: proj, env: {...env, CAST: BIN}, timeout: 170_000},
        (error, stdout, stderr) => resolve({code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, stdout}),
      )
    })

    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toContain('parser finished all 3 steps')
    expect(r.stdout).toMatch(/cli \(\w{7}\) stopped: needs_input\/question/)
    expect(r.stdout).toMatch(/cli: left for you \(/)
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(/1 of 2 workers finished, 1 waiting for you$/)
    const listing = json(await runCast(['sessions', '--json', '--label', 'fleet'], {env}))
    expect(listing.sessions).toHaveLength(2)
    const byTitle = new Map<string, {native_id: string; labels: string[]; reason: string}>(
      listing.sessions.map((s: {title: string}) => [s.title, s]),
    )
    const parser = byTitle.get('Write a parser for the config format')!
    const cli = byTitle.get('Add a --config flag to the CLI')!
    expect(parser.labels).toEqual(['fleet'])
    expect(userTexts(h.home, proj, parser.native_id)).toEqual([
      'Write a parser for the config format',
      'Add unit tests for the parser',
      'Document the parser in docs/config.md',
    ])
    // The question is still open, and nothing was typed into it.
    expect(cli.reason).toBe('question')
    expect(userTexts(h.home, proj, cli.native_id)).toEqual([
      'Add a --config flag to the CLI',
      'Ask me which default file name --config should use',
    ])
  }, 180_000)
})
