import {describe, expect, it} from 'vitest'

import {compose, feedReal, PROJ} from './engine.js'

const facts = (name: string) => {
  const {contributions} = feedReal(name)
  return compose(name.replace(/\.jsonl$/, ''), contributions)
}

describe('real Claude Code transcripts (slopus/happy fixtures, as they are)', () => {
  it('say-lol: settled although stop_reason is null', () => {
    const f = facts('happy-0-say-lol-session.jsonl')

    expect(f).toMatchObject({
      approval: null,
      backgroundWork: 0,
      createdAt: Date.parse('2025-07-19T22:21:00.576Z'),
      cwd: '/Users/kirilldubovitskiy/projects/happy/handy-cli/notes/test-project',
      error: null,
      lastActivityAt: Date.parse('2025-07-19T22:21:04.265Z'),
      lastAssistantText: 'lol',
      lastOutputAt: Date.parse('2025-07-19T22:21:04.265Z'),
      messages: 2,
      model: 'claude-opus-4-20250514',
      parentNativeId: null,
      parseErrors: 0,
      process: null,
      question: null,
      queued: 0,
      settled: true,
      title: 'say lol',
      turnIndex: 1,
      turnStartedAt: Date.parse('2025-07-19T22:21:00.576Z'),
    })
    expect(f.sources['settled']).toEqual({kind: 'transcript', offset: 373, ref: `${PROJ}/happy-0-say-lol-session.jsonl`})
  })

  it('ls-tool: the legacy summary line is the title; a tool call and its result', () => {
    const f = facts('happy-1-continue-run-ls-tool.jsonl')

    expect(f).toMatchObject({
      lastAssistantText: '0-say-lol-session.jsonl\nreadme.md',
      messages: 5,
      model: 'claude-opus-4-20250514',
      question: null,
      settled: true,
      title: 'Casual Chat: Simple Greeting Exchange',
      turnIndex: 2,
      turnStartedAt: Date.parse('2025-07-19T22:32:45.364Z'),
    })
    expect(f.sources['title']).toMatchObject({kind: 'transcript', offset: 0})
  })

  it('rate-limit: the API error banner is an error hard block', () => {
    const f = facts('happy-api-error-rate-limit.jsonl')

    expect(f.error).toEqual({
      at: Date.parse('2026-07-21T23:52:28.148Z'),
      source: {kind: 'transcript', offset: 341, ref: `${PROJ}/happy-api-error-rate-limit.jsonl`},
      text: "You've hit your limit · resets Jul 23 at 6pm (America/Los_Angeles)",
    })
    expect(f).toMatchObject({
      cwd: '/tmp/project',
      lastOutputAt: null,
      messages: 2,
      model: null,
      title: 'what is on my todo list today?',
      turnIndex: 1,
    })
  })

  it('permission prompt aborted, then interrupted: settled by the interrupt line', () => {
    const {contributions} = feedReal('happy-permission-prompt-aborted-with-interrupt.jsonl')
    const f = compose('happy-permission-prompt-aborted-with-interrupt', contributions)

    expect(f).toMatchObject({
      approval: null,
      error: null,
      lastAssistantText: "I'll create a file named `lol.txt` with some dummy data for you.",
      messages: 2,
      question: null,
      settled: true,
      title: 'Create file lol.txt with dummy data',
      turnIndex: 1,
    })
    expect(contributions[0]?.extra?.['last']).toBe('interrupt')
  })

  it('the same facts when the state is serialized between every line', () => {
    for (const name of [
      'happy-0-say-lol-session.jsonl',
      'happy-1-continue-run-ls-tool.jsonl',
      'happy-api-error-rate-limit.jsonl',
      'happy-permission-prompt-aborted-with-interrupt.jsonl',
    ]) {
      expect(feedReal(name, {roundTrip: true}).contributions).toEqual(feedReal(name).contributions)
    }
  })
})
