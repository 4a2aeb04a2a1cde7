import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, type TempHome, writeFile} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(() => h.cleanup())

const AGENTS = ['claude_code', 'codex', 'opencode', 'pi', 'gemini', 'copilot', 'cursor']
const SID = '0c2d4e6f-1111-4222-8333-944455556666'
const CWD = '/home/dev/app'
/** The screen is a source wherever tmux is installed (it is on the test machines). */
const SCREEN = fs.existsSync('/usr/bin/tmux') ? ['screen'] : []

describe('cast doctor', () => {
  it('an empty home: every adapter with its roots (missing), no sessions, no source yet; exit 0', async () => {
    const r = await runCommand(['doctor', '--json'], {env: h.env})

    expect(r.code).toBe(0)
    const report = json(r)
    expect(report.ok).toBe(true)
    expect(report.problems).toEqual([])
    expect(report.store).toMatchObject({ok: true, path: path.join(h.castHome, 'cast.db'), sessions: 0})
    expect(report.adapters.map((a: {agent: string}) => a.agent).sort()).toEqual([...AGENTS].sort())
    const claude = report.adapters.find((a: {agent: string}) => a.agent === 'claude_code')
    expect(claude.roots).toEqual([
      {exists: false, path: path.join(h.home, '.claude', 'projects')},
      {exists: false, path: path.join(h.home, '.claude', 'sessions')},
    ])
    expect(claude).toMatchObject({hooks: {state: 'not_installed'}, sessions: 0, sources: [], state_source: null})
    expect(report.adapters.find((a: {agent: string}) => a.agent === 'pi').hooks).toMatchObject({state: 'unsupported'})
  })

  it('counts sessions and malformed lines per agent, and names the best source it has', async () => {
    const transcript = claudeTranscriptPath(h.home, CWD, SID)
    writeFile(
      transcript,
      claudeLines({at: new Date('2026-11-29T10:00:00Z'), cwd: CWD, prompt: 'Fix the parser', sessionId: SID}) +
        '{"type":"user","message":\n',
    )
    const before = json(await runCommand(['doctor', '--json'], {env: h.env}))

    const install = await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})
    const after = json(await runCommand(['doctor', '--json'], {env: h.env}))

    const claude = (rep: any) => rep.adapters.find((a: {agent: string}) => a.agent === 'claude_code')
    expect(claude(before)).toMatchObject({
      files: 1,
      parse_errors: 1,
      sessions: 1,
      sources: ['transcript', ...SCREEN],
      state_source: 'transcript',
    })
    expect(claude(before).roots[0]).toEqual({exists: true, path: path.join(h.home, '.claude', 'projects')})
    expect(install.code).toBe(0)
    expect(claude(after).hooks).toMatchObject({
      binary_exists: true,
      file: path.join(h.home, '.claude', 'settings.json'),
      state: 'installed',
    })
    expect(claude(after)).toMatchObject({sources: ['hooks', 'transcript', ...SCREEN], state_source: 'hooks'})
    expect(after.ok).toBe(true)
  })

  it('a hook pointing at a missing binary is a real problem: exit 1, with the fix', async () => {
    await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})
    const settings = path.join(h.home, '.claude', 'settings.json')
    const text = fs.readFileSync(settings, 'utf8')
    fs.writeFileSync(settings, text.replace(/[^"\s]*\/bin\/cast-hook/g, '/opt/gone/bin/cast-hook'))

    const r = await runCommand(['doctor', '--json'], {env: h.env})
    const human = await runCommand(['doctor'], {env: h.env})

    expect(r.code).toBe(1)
    const report = json(r)
    expect(report.ok).toBe(false)
    expect(report.problems).toEqual([
      {
        agent: 'claude_code',
        fix: 'cast hooks install claude-code',
        message: expect.stringContaining('/opt/gone/bin/cast-hook, which does not exist'),
      },
    ])
    expect(human.code).toBe(1)
    expect(human.stdout).toContain('binary MISSING: /opt/gone/bin/cast-hook')
    expect(human.stdout).toContain('1 problem:')
    expect(human.stdout).toContain('fix: cast hooks install claude-code')
  })

  it('an unreadable store is a real problem: exit 1, and the adapters are still listed', async () => {
    fs.mkdirSync(h.castHome, {recursive: true})
    fs.writeFileSync(path.join(h.castHome, 'cast.db'), 'this is not a database, it is a note to self\n'.repeat(200))

    const r = await runCommand(['doctor', '--json'], {env: h.env})

    expect(r.code).toBe(1)
    const report = json(r)
    expect(report.store).toMatchObject({ok: false})
    expect(report.store.error).toMatch(/not a database/)
    expect(report.problems[0].message).toMatch(/^The store cannot be read: /)
    expect(report.adapters).toHaveLength(AGENTS.length)
  })

  it('a malformed agent settings file is reported, not a problem; a bad screen pattern is the config error commands give (issue 13 point 6)', async () => {
    writeFile(path.join(h.home, '.gemini', 'settings.json'), '{"hooks": {')
    writeFile(path.join(h.castHome, 'config.json'), JSON.stringify({screen_patterns: {codex: {approval: ['(unclosed']}}}))

    const r = await runCommand(['doctor', '--json'], {env: h.env})
    const sessions = await runCommand(['sessions'], {env: h.env})

    // Commands refuse this config (exit 2), so doctor names it as a problem, with their message.
    expect(sessions.code).toBe(2)
    expect(r.code).toBe(1)
    const report = json(r)
    expect(report.adapters.find((a: {agent: string}) => a.agent === 'gemini').hooks.state).toBe('error')
    expect(report.config.screen_pattern_errors).toEqual([expect.stringMatching(/^screen_patterns\.codex\.approval\.0: /)])
    expect(report.problems.map((p: {message: string}) => p.message)).toEqual([sessions.stderr.split('\n')[0]!.replace(/^cast: /, '')])
    expect(report.warnings).toHaveLength(2)
  })

  it('prints a section per adapter for people', async () => {
    const r = await runCommand(['doctor'], {env: h.env})

    expect(r.code).toBe(0)
    for (const label of [
      'Claude Code (claude_code)',
      'Codex CLI (codex)',
      'OpenCode (opencode)',
      'pi (pi)',
      'Gemini CLI (gemini)',
      'Copilot CLI (copilot)',
      'Cursor agent (cursor)',
    ]) {
      expect(r.stdout).toContain(label)
    }

    expect(r.stdout).toMatch(/^store {4}/m)
    expect(r.stdout).toContain('~/.claude/projects  missing')
    expect(r.stdout).toContain('No problems found.')
  })
})
