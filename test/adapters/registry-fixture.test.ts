/**
 * Adding an agent is one folder and one registry line (issue 12 point 1): a fixture agent
 * (test/adapters/fixture-agent/, read-only, with hooks) registered in-process with
 * `createRegistry([...MODULES, fixtureAgent])` is read by ingest, its hook events reach its
 * reducer, `--agent` takes its spellings, the self-session lookup knows its variable, its hook
 * spec and its screen patterns are found, its name is used in sentences: no other change.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {createRegistry, MODULES, registry, useRegistry} from '../../src/adapters/index.js'
import {screenMatcher} from '../../src/adapters/screen.js'
import {consumeSpool} from '../../src/core/ingest/spool.js'
import {castId} from '../../src/core/model/ids.js'
import {sentence} from '../../src/core/model/notify.js'
import {Store} from '../../src/core/store/store.js'
import {agentFromName, validAgentId} from '../../src/lib/agents/agent-commands.js'
import {normaliseAgent, parseAgent} from '../../src/lib/cli/flags.js'
import {makeIngester} from '../../src/lib/ingest/ingest.js'
import {findOwnSession} from '../../src/lib/agents/self-session.js'
import {fixtureAgent, fixtureHookSpec} from './fixture-agent/index.js'

const FOLDER = path.join(import.meta.dirname, 'fixture-agent')
const NOW = Date.parse('2026-11-29T12:00:00Z')
const NATIVE = 'fx-0001'
let dir: string
let home: string
let castHome: string
let store: Store

const copy = (from: string, to: string): void => {
  fs.mkdirSync(to, {recursive: true})
  for (const e of fs.readdirSync(from, {withFileTypes: true})) {
    if (e.isDirectory()) copy(path.join(from, e.name), path.join(to, e.name))
    else fs.copyFileSync(path.join(from, e.name), path.join(to, e.name))
  }
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cast-fixture-agent-'))
  home = path.join(dir, 'home')
  castHome = path.join(dir, 'cast')
  copy(path.join(FOLDER, 'home'), home)
  store = new Store(castHome)
})
afterEach(() => {
  useRegistry(null)
  store.close()
  fs.rmSync(dir, {force: true, recursive: true})
})

/** The one line adding the agent takes. */
const withFixture = (): void => useRegistry(createRegistry([...MODULES, fixtureAgent]))
const env = (): Record<string, string> => ({CAST_HOME: castHome, CAST_NOW: String(NOW), HOME: home})

describe('a fixture agent, registered with one line', () => {
  it('without the line cast knows nothing of it (the test is not vacuous)', () => {
    expect(normaliseAgent('fixture-agent')).toBeNull()
    makeIngester(store, env(), () => NOW, 'me').sync()
    expect(store.sessionIds().filter((s) => s.agent === fixtureAgent.id)).toEqual([])
  })

  it('ingest reads its sessions, and its hook events reach its reducer', () => {
    withFixture()
    const ingester = makeIngester(store, env(), () => NOW, 'me')
    ingester.sync()
    const id = castId(fixtureAgent.id, NATIVE)
    let row = store.loadSessions([id])[0]!
    expect(row).toBeDefined()
    expect(row.agent).toBe('fixture_agent')
    expect(row.facts).toMatchObject({cwd: '/src/fixture', messages: 2, settled: true, title: 'Rename the config loader', turnIndex: 1})

    // A hook event, as bin/cast-hook spools it under the agent id.
    const spool = path.join(castHome, 'spool')
    fs.mkdirSync(spool, {mode: 0o700, recursive: true})
    const secs = Math.floor(NOW / 1000) - 5
    fs.writeFileSync(
      path.join(spool, `${secs}.000000000.4242.fixture_agent.json`),
      JSON.stringify({event: 'Ask', session: NATIVE, tool: 'Bash'}),
      {mode: 0o600},
    )
    consumeSpool(store, ingester, castHome, () => NOW)
    row = store.loadSessions([id])[0]!
    expect(row.facts.approval).toMatchObject({text: 'Bash'})
    expect(row.state).toBe('needs_input')
  })

  it('--agent and the config accept its spellings', () => {
    withFixture()
    for (const s of ['fixture_agent', 'fixture-agent', 'Fixture Agent', 'fixture', 'FIXTURE-CLI'])
      expect(parseAgent(s)).toBe('fixture_agent')
    expect(agentFromName('fixture')).toBe('fixture_agent')
    expect(() => parseAgent('nobody')).toThrow(/fixture_agent/)
    // No id syntax of its own: any plain word, never an option.
    expect(validAgentId('fixture_agent', 'fx-0001')).toBe(true)
    expect(validAgentId('fixture_agent', '--rm')).toBe(false)
  })

  it('the self-session lookup knows its variable', () => {
    withFixture()
    makeIngester(store, env(), () => NOW, 'me').sync()
    const self = findOwnSession(store, undefined, {FIXTURE_AGENT_SESSION_ID: NATIVE, HOME: home}, 1)
    expect(self).toEqual({id: castId('fixture_agent', NATIVE), via: 'FIXTURE_AGENT_SESSION_ID'})
  })

  it('its hook spec, its screen patterns, its name in a sentence and its env are found', () => {
    withFixture()
    const r = registry()
    expect(r.hookSpecFor('fixture-agent')).toBe(fixtureHookSpec)
    expect(r.hookSpecFor('fixture_agent')).toBe(fixtureHookSpec)
    expect(r.hookSpecFor('fixture-cli')).toBe(fixtureHookSpec)
    expect(r.hookSpecs).toContain(fixtureHookSpec)
    const m = screenMatcher()
    expect(m.processes.get('fixture-agent')).toBe('fixture_agent')
    expect(m.match('fixture_agent', 'Allow Bash?\n')).toEqual({kind: 'approval', text: 'Bash'})
    expect(sentence('fixture_agent', 'approval', r.shortNames)).toBe('Fixture is waiting for approval')
    expect(r.envVariables).toContain('FIXTURE_AGENT_HOME')
    expect(r.sessionVariables).toContainEqual({agent: 'fixture_agent', name: 'FIXTURE_AGENT_SESSION_ID'})
    // Read-only: nothing to spawn or resume it with.
    expect(r.spawnable).not.toContain(fixtureAgent)
  })
})
