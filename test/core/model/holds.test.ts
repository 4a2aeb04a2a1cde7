import {describe, expect, it} from 'vitest'

import {EMPTY_HOLDS, type HoldsNode, lineUsage, MAX_LINE_TOKENS, phaseOf, sumTree} from '../../../src/core/model/holds.js'
import {EMPTY_FACTS, type SessionHolds} from '../../../src/core/model/types.js'

const holds = (over: Partial<SessionHolds> = {}): SessionHolds => ({...EMPTY_HOLDS, ...over})
const node = (id: string, parentId: string | null, h: SessionHolds | null): HoldsNode => ({holds: h, id, parentId, state: 'done'})

describe('lineUsage', () => {
  it('reads sane counts, cache fields optional', () => {
    expect(lineUsage({input: 3, output: 4})).toEqual({cacheRead: 0, cacheWrite: 0, input: 3, output: 4})
    expect(lineUsage({cacheRead: 5, cacheWrite: 6, input: 3, output: 4})).toEqual({cacheRead: 5, cacheWrite: 6, input: 3, output: 4})
  })

  it.each([
    ['missing output', {input: 1, output: undefined}],
    ['negative', {input: -1, output: 1}],
    ['fractional', {input: 1.5, output: 1}],
    ['a string', {input: '1', output: 1}],
    ['NaN', {input: Number.NaN, output: 1}],
    ['1e18', {input: 1e18, output: 1}],
    ['a sum past the bound', {cacheRead: MAX_LINE_TOKENS, input: 1, output: 1}],
    ['a null cache field', {cacheRead: null, input: 1, output: 1}],
  ])('%s is unknown', (_name, raw) => {
    expect(lineUsage(raw)).toBeNull()
  })

  it('required cache fields (Codex totals) must be present', () => {
    expect(lineUsage({input: 1, output: 1}, [])).toBeNull()
  })
})

describe('sumTree', () => {
  it('sums usage, models and changed paths over a tree of three levels; unknown lines add up apart', () => {
    const t = sumTree('root', [
      node(
        'root',
        null,
        holds({
          changed: [{count: 1, path: '/a'}],
          models: ['m1'],
          unknownUsage: 1,
          usage: {cacheRead: 1, cacheWrite: 2, input: 3, output: 4},
        }),
      ),
      node(
        'kid',
        'root',
        holds({
          changed: [
            {count: 2, path: '/a'},
            {count: 1, path: '/b'},
          ],
          models: ['m2'],
          usage: {cacheRead: 10, cacheWrite: 0, input: 30, output: 40},
        }),
      ),
      node('grandkid', 'kid', holds({models: ['m1'], unknownUsage: 2, usage: {cacheRead: 0, cacheWrite: 0, input: 300, output: 400}})),
      node('other', null, holds({usage: {cacheRead: 9, cacheWrite: 9, input: 9, output: 9}})),
    ])
    expect(t.usage).toEqual({cacheRead: 11, cacheWrite: 2, input: 333, output: 444})
    expect(t.unknownUsage).toBe(3)
    expect(t.models).toEqual(['m1', 'm2'])
    expect(t.changed).toEqual([
      {count: 3, path: '/a'},
      {count: 1, path: '/b'},
    ])
    expect(t.sessions).toBe(3)
  })

  it('a session without subagents is its own tree: the same figures as a tree walk, repeats merged', () => {
    const own = holds({
      changed: [
        {count: 2, path: '/a'},
        {count: 1, path: '/b'},
      ],
      changedMore: 1,
      models: ['m1'],
      partial: true,
      unknownUsage: 2,
      usage: {cacheRead: 1, cacheWrite: 2, input: 3, output: 4},
    })
    const walked = sumTree('a', [node('a', null, own), node('gone', 'nobody', holds())])
    expect(sumTree('a', [node('a', null, own)])).toEqual(walked)
    expect(walked).toMatchObject({changedMore: 1, partial: true, sessions: 1, unknownUsage: 2, withoutUsage: 0})
    const repeats = holds({
      changed: [
        {count: 1, path: '/a'},
        {count: 2, path: '/a'},
      ],
      models: ['m1', 'm1'],
    })
    expect(sumTree('a', [node('a', null, repeats)])).toMatchObject({changed: [{count: 3, path: '/a'}], models: ['m1']})
    expect(sumTree('a', [node('a', null, null)])).toEqual(sumTree('a', [node('a', null, null), node('x', 'y', null)]))
  })

  it('a tree where no session records usage has usage null; a parent cycle is walked once', () => {
    const t = sumTree('a', [node('a', 'b', null), node('b', 'a', holds())])
    expect(t.usage).toBeNull()
    expect(t.sessions).toBe(2)
    expect(t.withoutUsage).toBe(2)
  })
})

describe('phaseOf', () => {
  const proc = (status: 'working' | 'compacting' | 'starting' | 'idle' | null, alive = true) => ({
    alive,
    exited: null,
    heartbeatAt: null,
    pid: 1,
    source: {kind: 'registry', ref: 'x'},
    status,
  })
  const f = {...EMPTY_FACTS, messages: 2}

  it('starting, thinking, running a tool, compacting, waiting, ended', () => {
    expect(phaseOf({...f, messages: 0, process: proc('starting')}, 'working', null)).toBe('starting')
    expect(phaseOf({...f, process: proc('working')}, 'working', holds())).toBe('thinking')
    expect(phaseOf({...f, process: proc('working')}, 'working', holds({running: [{name: 'Bash', since: null}]}))).toBe('running_tool')
    expect(phaseOf({...f, process: proc('compacting')}, 'working', holds())).toBe('compacting')
    expect(phaseOf({...f, process: proc('idle'), settled: true}, 'needs_input', holds())).toBe('waiting')
    expect(phaseOf({...f, approval: {at: 1, source: {kind: 'hook', ref: 'x'}, text: 'Bash'}}, 'needs_input', holds())).toBe('waiting')
    expect(phaseOf({...f, process: proc(null, false), settled: true}, 'done', holds())).toBe('ended')
  })
})
