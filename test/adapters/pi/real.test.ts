import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {AGENT, REAL, feed, lineAt} from './helpers.js'

// The real pi file (badlogic/pi-mono, v1 format), as it is, seen where pi would keep it.
const ID = 'd703a1a9-1b7b-4fb1-b512-c9738b1fe617'
const AS = join(AGENT, 'sessions', '--Users-badlogic-workspaces-pi-mono--', `2025-11-20T23-33-50-805Z_${ID}.jsonl`)
const real = (opts = {}) => feed(AS, {from: REAL, ...opts})

describe('real pi session (v1, large-session.jsonl lines 1-15)', () => {
  it('reads every line, and the turn is still running (the leaf asks for a tool)', () => {
    const fed = real()

    expect(fed.rejected).toBe(0)
    expect(fed.contributions).toHaveLength(1)
    expect(fed.contributions[0]!.nativeId).toBe(ID)
    expect(fed.facts).toMatchObject({
      approval: null,
      createdAt: Date.parse('2025-11-20T23:33:50.805Z'),
      cwd: '/Users/badlogic/workspaces/pi-mono',
      error: null,
      lastActivityAt: Date.parse('2025-11-20T23:34:29.990Z'),
      lastOutputAt: Date.parse('2025-11-20T23:34:29.990Z'),
      messages: 6,
      model: 'claude-sonnet-4-5',
      parentNativeId: null,
      parseErrors: 0,
      question: null,
      settled: false,
      turnIndex: 2,
      turnStartedAt: 1763681630791,
    })
    expect(fed.contributions[0]!.extra).toMatchObject({provider: 'anthropic', tail: 'tool_use', version: 1})
  })

  it('the title skips the lone "/mode" command and takes the first real prompt, one line, clipped', () => {
    const fed = real()

    expect(fed.facts.title).toMatch(/^read packages\/coding-agent\/docs\/theme\.md in full, then theme\.ts, and then oauth-selector/)
    expect(fed.facts.title!.length).toBe(200)
    expect(fed.facts.title!.endsWith('…')).toBe(true)
    expect(lineAt(fed, fed.facts.sources.title?.offset)).toContain('"timestamp":1763681630791')
  })

  it('the aborted first reply (another model) settles that turn without an error', () => {
    const fed = real({lines: 3})

    expect(fed.facts).toMatchObject({error: null, messages: 2, model: 'gpt-5.1-codex', settled: true, title: '/mode'})
  })

  it('model_change beats the model of an earlier reply', () => {
    expect(real({lines: 4}).facts.model).toBe('claude-sonnet-4-5')
  })

  it('the last reply text is kept for a settle classifier', () => {
    expect(real().facts.lastAssistantText).toMatch(/^Now I can see the patterns clearly\./)
  })

  it('line by line with the state round-tripped through JSON gives the same facts', () => {
    expect(real({roundTrip: true}).facts).toEqual(real().facts)
    expect(readFileSync(REAL).length).toBe(62809)
  })
})
