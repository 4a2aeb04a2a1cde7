/**
 * End to end: a temp HOME holding pi sessions (~/.pi/agent/sessions) and an OpenCode database
 * ($XDG_DATA_HOME/opencode/opencode.db), listed by the built CLI as a user would.
 */
import fs from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {json, makeHome, runCast, type TempHome} from '../../helpers/cli.js'
import {sessionPath} from '../pi/helpers.js'
import {buildDb} from './helpers.js'
import {ID, SCENARIOS} from './scenarios.js'

let h: TempHome
let env: Record<string, string>

function placePi(n: number): void {
  const src = sessionPath(n)
  const rel = src.slice(src.indexOf(`${path.sep}sessions${path.sep}`) + 1)
  const dest = path.join(h.home, '.pi', 'agent', rel)
  fs.mkdirSync(path.dirname(dest), {recursive: true})
  fs.copyFileSync(src, dest)
}

beforeAll(() => {
  h = makeHome()
  env = {...h.env, CAST_NOW: '2026-08-01T10:30:00.000Z'}
  placePi(5)
  placePi(3)
  buildDb(
    path.join(h.env.XDG_DATA_HOME!, 'opencode', 'opencode.db'),
    SCENARIOS.filter((s) => [ID.settled, ID.question, ID.error, ID.parent, ID.child].includes(s.id as never)),
  )
})
afterAll(() => h.cleanup())

describe('cast sessions over pi and OpenCode', () => {
  it('lists both agents with the right title, model, state and reason', async () => {
    const r = await runCast(['sessions', '--json'], {env})
    expect(r.code).toBe(0)
    const out = json(r)
    const by = (agent: string, title: string) =>
      out.sessions.find((s: {agent: string; title: string}) => s.agent === agent && s.title === title)

    expect(by('pi', 'README rewrite')).toMatchObject({
      cwd: '/home/dev/projects/docs',
      messages: 2,
      model: 'claude-sonnet-4-5',
      reason: 'settled',
      state: 'needs_input',
    })
    expect(by('pi', 'Summarize the open issues')).toMatchObject({model: 'claude-sonnet-4-5', reason: 'error', state: 'needs_input'})
    expect(by('opencode', 'Set up the database')).toMatchObject({
      bucket: 'questions',
      model: 'claude-sonnet-4-5',
      reason: 'question',
      state: 'needs_input',
    })
    expect(by('opencode', 'Summarize the changelog')).toMatchObject({
      cwd: '/home/dev/projects/notes',
      reason: 'error',
      state: 'needs_input',
    })
    expect(by('opencode', 'Fix the login redirect loop')).toMatchObject({
      messages: 3,
      native_id: ID.settled,
      reason: 'settled',
      state: 'needs_input',
    })
    // The subagent child is folded under its parent, not a row of its own.
    expect(by('opencode', 'Explore the auth module (@explore subagent)')).toBeUndefined()
    const parent = by('opencode', 'Audit the auth module')
    expect(parent.children).toHaveLength(1)
    expect(out.counts.folded).toBe(1)
    expect(out.sessions).toHaveLength(6)
  })

  it('--agent filters by agent; the human listing shows the titles', async () => {
    const pi = json(await runCast(['sessions', '--json', '--agent', 'pi'], {env}))
    const human = await runCast(['sessions'], {env})

    expect(pi.sessions.map((s: {agent: string}) => s.agent)).toEqual(['pi', 'pi'])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain('README rewrite')
    expect(human.stdout).toContain('Set up the database')
  })

  it('explain names the file or database row behind each fact', async () => {
    const out = json(await runCast(['sessions', '--json'], {env}))
    const q = out.sessions.find((s: {title: string}) => s.title === 'Set up the database')
    const r = await runCast(['explain', q.id], {env})

    expect(r.code).toBe(0)
    expect(r.stdout).toContain('opencode.db#part=prt_e03')
    expect(r.stdout).toContain('Which database should the migration target?')
  })
})
