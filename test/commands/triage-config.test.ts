/**
 * The config file (DESIGN §6, issue 5 item 7): one file, validated with zod; every error names
 * the key and the file; identities are checked against the team list when one is configured.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {CastError} from '../../src/lib/cli/base-command.js'
import {configPath, loadConfig, resolveIdentity} from '../../src/lib/home/config.js'
import {makeHome, type TempHome} from '../helpers/cli.js'
import {ANA, cast, HOUR, ME, T0, writeSession} from './triage-helpers.js'

describe('the config file', () => {
  let dir: string
  let file: string
  const env = (): Record<string, string> => ({CAST_HOME: dir, HOME: dir})

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-config-'))
    file = path.join(dir, 'config.json')
  })

  afterEach(() => fs.rmSync(dir, {force: true, recursive: true}))

  const write = (value: unknown): void => fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value))

  async function failure(value: unknown): Promise<CastError> {
    write(value)
    const error = await loadConfig(env()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(CastError)
    return error as CastError
  }

  it('lives in $CAST_HOME/config.json, else $XDG_CONFIG_HOME/cast/config.json, else ~/.config/cast/config.json', () => {
    expect(configPath({CAST_HOME: '/data/cast', XDG_CONFIG_HOME: '/x'})).toBe('/data/cast/config.json')
    expect(configPath({HOME: '/home/me', XDG_CONFIG_HOME: '/x'})).toBe('/x/cast/config.json')
    expect(configPath({HOME: '/home/me'})).toBe('/home/me/.config/cast/config.json')
  })

  it('gives the defaults when there is no file', async () => {
    const c = await loadConfig(env())

    expect(c).toMatchObject({file, inbox: {recencyMs: 7 * 24 * HOUR}, settleClassifier: null, team: []})
    expect(c.presences.map((p) => p.name)).toEqual(['online', 'away'])
  })

  it('reads team members, the inbox recency, presences, the settle classifier and agent commands', async () => {
    write({
      agents: {claude_code: {headless: ['claude', '-p', '{prompt}']}},
      inbox: {recency: '3d'},
      presences: [{instructions: 'Batch questions.', name: 'focus', wait_budget: '20m'}],
      settle_classifier: ['./judge.sh'],
      team: [ME, {id: ` ${ANA} `, name: 'Ana'}],
    })

    const c = await loadConfig(env())

    expect(c.team).toEqual([{id: ME}, {id: ANA, name: 'Ana'}])
    expect(c.inbox.recencyMs).toBe(3 * 24 * HOUR)
    expect(c.presences.find((p) => p.name === 'focus')).toEqual({
      instructions: 'Batch questions.',
      name: 'focus',
      waitBudgetMs: 20 * 60_000,
    })
    expect(c.settleClassifier).toEqual(['./judge.sh'])
    expect(c.agents.claude_code?.headless).toEqual(['claude', '-p', '{prompt}'])
  })

  it.each`
    value                                                     | key
    ${{inbox: {recency: 'soon'}}}                             | ${'inbox.recency'}
    ${{inbox: {recency: 0}}}                                  | ${'inbox.recency'}
    ${{inbox: {window: '7d'}}}                                | ${'inbox'}
    ${{teams: []}}                                            | ${'(top level)'}
    ${{team: ['ana smith']}}                                  | ${'team.0'}
    ${{team: [ME, {id: 'me@example.com'}]}}                   | ${'team.1.id'}
    ${{team: [ME, ME.toUpperCase()]}}                         | ${'team.1'}
    ${{presences: [{name: 'Focus'}]}}                         | ${'presences.0.name'}
    ${{presences: [{name: 'focus'}, {name: 'focus'}]}}        | ${'presences.1.name'}
    ${{presences: [{name: 'focus', wait_budget: 'a while'}]}} | ${'presences.0.wait_budget'}
    ${{settle_classifier: []}}                                | ${'settle_classifier'}
    ${{agents: {codex: {headless: 'codex exec'}}}}            | ${'agents.codex.headless'}
    ${{screen_patterns: {pi: {approval: ['(']}}}}             | ${'screen_patterns.pi.approval.0'}
  `('names key $key and the file for $value', async ({key, value}) => {
    const e = await failure(value)

    expect(e.exit).toBe(2)
    expect(e.message).toContain(`Config ${file}: key "${key}"`)
    expect(e.message.split('\n')).toHaveLength(1)
  })

  it('names the file when it is not JSON', async () => {
    const e = await failure('{"team": [')

    expect(e.exit).toBe(2)
    expect(e.message).toContain(`The config file ${file} is not valid JSON`)
  })

  describe('resolveIdentity', () => {
    it('takes any identity-shaped WHO when no team is configured', async () => {
      const c = await loadConfig(env())

      expect(resolveIdentity(c, ` ${ANA} `)).toBe(ANA)
      expect(resolveIdentity(c, 'bob@build-host')).toBe('bob@build-host')
      expect(() => resolveIdentity(c, 'ana smith')).toThrow(/is not an identity/)
      expect(() => resolveIdentity(c, 'x')).toThrow(/is not an identity/)
    })

    it('with a team, takes a member by id or name (any case) and returns the id; anyone else is exit 2 naming the key and file', async () => {
      write({team: [ME, {id: ANA, name: 'Ana'}]})
      const c = await loadConfig(env())

      expect(resolveIdentity(c, 'ANA@example.com')).toBe(ANA)
      expect(resolveIdentity(c, 'ana')).toBe(ANA)
      expect(resolveIdentity(c, ME)).toBe(ME)
      let error: unknown
      try {
        resolveIdentity(c, 'bob@example.com')
      } catch (e) {
        error = e
      }

      expect(error).toBeInstanceOf(CastError)
      expect((error as CastError).exit).toBe(2)
      expect((error as CastError).message).toBe(`"bob@example.com" is not on the team: key "team" in ${file} lists ${ME}, ${ANA} (Ana).`)
    })
  })
})

describe('the config file through the CLI', () => {
  let h: TempHome

  beforeEach(() => {
    h = makeHome()
    fs.mkdirSync(h.castHome, {recursive: true})
  })

  afterEach(() => h.cleanup())

  it('a bad file stops a command with exit 2 and one line naming the key and the file', async () => {
    const file = path.join(h.castHome, 'config.json')
    fs.writeFileSync(file, JSON.stringify({inbox: {recency: 'a fortnight'}}))

    const r = await cast(h, ['sessions'])

    expect(r.code).toBe(2)
    expect(r.stderr.trim()).toBe(`cast: Config ${file}: key "inbox.recency": "a fortnight" is not a duration (try "15m", "2h", "7d")`)
  })

  it('inbox.recency sets how long an unowned session stays in the inbox', async () => {
    const proj = path.join(h.dir, 'proj')
    fs.mkdirSync(proj)
    writeSession(h, {at: T0 - 2 * 24 * HOUR, cwd: proj, n: 1})
    const listed = async (): Promise<number> => JSON.parse((await cast(h, ['sessions', '--json'])).stdout).sessions.length
    expect(await listed()).toBe(1)

    fs.writeFileSync(path.join(h.castHome, 'config.json'), JSON.stringify({inbox: {recency: '1d'}}))

    expect(await listed()).toBe(0)
  })
})
