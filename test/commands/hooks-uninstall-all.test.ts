/**
 * `cast hooks uninstall --all` (issue 13 point 1): before uninstalling cast, one command takes
 * cast's entries out of every agent's settings, leaving the user's own hooks in place.
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

describe('cast hooks uninstall --all', () => {
  it('removes cast’s hooks from every agent and nothing else; then no hook command points at cast', async () => {
    const h = makeHome()
    homes.push(h)
    const settings = path.join(h.home, '.claude', 'settings.json')
    fs.mkdirSync(path.dirname(settings), {recursive: true})
    const mine = {hooks: {Stop: [{hooks: [{command: 'echo mine', type: 'command'}], matcher: ''}]}}
    fs.writeFileSync(settings, JSON.stringify(mine))
    for (const agent of ['claude-code', 'codex', 'gemini'])
      expect((await runCommand(['hooks', 'install', agent], {env: h.env})).code).toBe(0)
    const before = fs.readFileSync(settings, 'utf8')
    expect(before).toContain('cast-hook')

    const r = await runCommand(['hooks', 'uninstall', '--all', '--json'], {env: h.env})
    expect(r.code, r.stderr).toBe(0)
    const removed = json<{agents: {agent: string; removed: string[]}[]}>(r)
      .agents.filter((a) => a.removed.length > 0)
      .map((a) => a.agent)
    expect(removed).toEqual(expect.arrayContaining(['claude_code', 'codex', 'gemini']))

    const after = fs.readFileSync(settings, 'utf8')
    expect(after).not.toContain('cast-hook')
    expect(after).toContain('echo mine')
    const status = json<{agents?: {state: string}[]} | {state: string}[]>(await runCommand(['hooks', 'status', '--json'], {env: h.env}))
    expect(JSON.stringify(status)).not.toMatch(/"state":"(installed|partial|stale)"/)
  })

  it('leaves no trace beyond CAST_HOME: settings files cast created go, with their backups and the folders made for them', async () => {
    const h = makeHome()
    homes.push(h)
    const tree = (): string[] => fs.readdirSync(h.home, {recursive: true}).map(String).sort()
    const before = tree()
    for (const agent of ['claude-code', 'codex', 'gemini']) {
      expect((await runCommand(['hooks', 'install', agent], {env: h.env})).code).toBe(0)
      // Installed twice: the second run backs the file up.
      expect((await runCommand(['hooks', 'install', agent, '--no-nudge'], {env: h.env})).code).toBe(0)
    }
    expect(tree()).toContain(path.join('.claude', 'settings.json'))
    expect(tree().some((f) => f.includes('.cast-backup-'))).toBe(true)

    const r = await runCommand(['hooks', 'uninstall', '--all'], {env: h.env})

    expect(r.code, r.stderr).toBe(0)
    expect(tree()).toEqual(before)
  })

  it('keeps a settings file cast created once the user has put their own settings in it', async () => {
    const h = makeHome()
    homes.push(h)
    const settings = path.join(h.home, '.claude', 'settings.json')
    expect((await runCommand(['hooks', 'install', 'claude-code'], {env: h.env})).code).toBe(0)
    const doc = JSON.parse(fs.readFileSync(settings, 'utf8')) as Record<string, unknown>
    fs.writeFileSync(settings, JSON.stringify({...doc, model: 'opus'}))

    expect((await runCommand(['hooks', 'uninstall', '--all'], {env: h.env})).code).toBe(0)
    expect(JSON.parse(fs.readFileSync(settings, 'utf8'))).toMatchObject({model: 'opus'})
    expect(fs.readFileSync(settings, 'utf8')).not.toContain('cast-hook')
  })

  it('needs an agent or --all, not both', async () => {
    const h = makeHome()
    homes.push(h)
    expect((await runCommand(['hooks', 'uninstall'], {env: h.env})).code).toBe(2)
    expect((await runCommand(['hooks', 'uninstall', 'codex', '--all'], {env: h.env})).code).toBe(2)
  })
})
