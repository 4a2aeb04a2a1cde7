import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {codex} from '../../../src/adapters/codex/index.js'
import {HOME, IDS, ctx, discover} from './helpers.js'

describe('codex roots and match', () => {
  it('honours CODEX_HOME, else <home>/.codex', () => {
    const fromEnv = codex.roots({env: {CODEX_HOME: '/srv/codex/'}, home: '/home/ada'})
    const fromHome = codex.roots({env: {}, home: '/home/ada'})

    expect(fromEnv).toEqual(['/srv/codex/sessions', '/srv/codex/archived_sessions', '/srv/codex'])
    expect(fromHome).toEqual(['/home/ada/.codex/sessions', '/home/ada/.codex/archived_sessions', '/home/ada/.codex'])
  })

  it.each`
    path                                                                      | expected
    ${`sessions/2026/04/27/rollout-2026-04-27T12-01-00-${IDS.settled}.jsonl`} | ${{kind: 'jsonl', nativeId: IDS.settled, role: 'rollout'}}
    ${`archived_sessions/rollout-2026-03-02T08-30-00-${IDS.archived}.jsonl`}  | ${{kind: 'jsonl', nativeId: IDS.archived, role: 'archived'}}
    ${'session_index.jsonl'}                                                  | ${{kind: 'whole', role: 'session_index'}}
    ${'history.jsonl'}                                                        | ${null}
    ${'sessions/2026/04/27/notes.jsonl'}                                      | ${null}
    ${`sessions/2026/04/27/rollout-2026-04-27T12-01-00-${IDS.settled}.json`}  | ${null}
    ${`log/rollout-2026-04-27T12-01-00-${IDS.settled}.jsonl`}                 | ${null}
    ${'sessions/2026/04/27/session_index.jsonl'}                              | ${null}
  `('match($path)', ({path, expected}) => {
    const match = codex.match(join(HOME, path), ctx)

    expect(match).toEqual(expected)
  })

  it('takes the thread id from the file name, whatever it looks like', () => {
    const match = codex.match('/c/sessions/2026/04/27/rollout-2026-04-27T12-01-00-sample-session-1.jsonl', {
      env: {CODEX_HOME: '/c'},
      home: '/h',
    })

    expect(match).toEqual({kind: 'jsonl', nativeId: 'sample-session-1', role: 'rollout'})
  })

  it('skips bulky folders but never the dated session folders', () => {
    expect(codex.skipDir?.('/home/ada/.codex/log')).toBe(true)
    expect(codex.skipDir?.('/home/ada/.codex/shell_snapshots')).toBe(true)
    expect(codex.skipDir?.('/home/ada/.codex/sessions')).toBe(false)
    expect(codex.skipDir?.('/home/ada/.codex/sessions/2026/04')).toBe(false)
  })

  it('discovers every rollout once, archived ones included, and the index', () => {
    const found = discover()

    const ids = found.flatMap((d) => (d.match.kind === 'jsonl' ? [d.match.nativeId] : [])).sort()
    expect(ids).toEqual(Object.values(IDS).sort())
    expect(found.filter((d) => d.match.kind === 'whole').map((d) => d.path)).toEqual([join(HOME, 'session_index.jsonl')])
  })

  it('declares what the engine needs: agent, open-file liveness, hooks, compose', () => {
    expect(codex.agent).toBe('codex')
    expect(codex.openFileProcesses).toEqual(['codex'])
    expect(codex.hooks).toBeDefined()
    expect(codex.compose).toBeDefined()
  })
})
