import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import {ctx, HOME, PROJ, sid} from './engine.js'

describe('where Claude Code keeps its files', () => {
  it('roots: $CLAUDE_CONFIG_DIR, else <home>/.claude', () => {
    expect(claudeCode.roots(ctx)).toEqual([join(HOME, 'projects'), join(HOME, 'sessions')])
    expect(claudeCode.roots({env: {}, home: '/home/u'})).toEqual(['/home/u/.claude/projects', '/home/u/.claude/sessions'])
    expect(claudeCode.roots({env: {CLAUDE_CONFIG_DIR: ''}, home: '/home/u'})).toEqual([
      '/home/u/.claude/projects',
      '/home/u/.claude/sessions',
    ])
  })

  it.each([
    [join(PROJ, `${sid(1)}.jsonl`), {kind: 'jsonl', nativeId: sid(1), parentNativeId: null, role: 'transcript'}],
    [
      join(PROJ, sid(7), 'subagents', 'agent-a7f3c21.jsonl'),
      {kind: 'jsonl', nativeId: `${sid(7)}/agent-a7f3c21`, parentNativeId: sid(7), role: 'subagent'},
    ],
    [
      join(PROJ, sid(7), 'subagents', 'agent-a7f3c21.meta.json'),
      {kind: 'whole', nativeId: `${sid(7)}/agent-a7f3c21`, role: 'subagent-meta'},
    ],
    [join(PROJ, 'agent-a7f3c21.jsonl'), {kind: 'jsonl', nativeId: 'agent-a7f3c21', role: 'subagent'}],
    [join(HOME, 'sessions', '50224.json'), {kind: 'whole', role: 'registry'}],
  ])('match %s', (path, expected) => {
    expect(claudeCode.match(path, ctx)).toEqual(expected)
  })

  it.each([
    join(PROJ, sid(7), 'tool-results', 'toolu_07big.txt'),
    join(HOME, 'sessions', 'notes.json'),
    join(HOME, 'projects', `${sid(1)}.jsonl`),
    join(PROJ, 'notes.txt'),
    join(HOME, 'history.jsonl'),
    '/elsewhere/projects/-tmp-proj/x.jsonl',
  ])('no match: %s', (path) => {
    expect(claudeCode.match(path, ctx)).toBeNull()
  })

  it('skips tool-results folders', () => {
    expect(claudeCode.skipDir?.(join(PROJ, sid(7), 'tool-results'))).toBe(true)
    expect(claudeCode.skipDir?.(join(PROJ, sid(7), 'subagents'))).toBe(false)
  })
})
