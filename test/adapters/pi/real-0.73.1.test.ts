import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {AGENT, FIXTURES, feed} from './helpers.js'

/**
 * Files pi 0.73.1 wrote here, driven in tmux against the conformance mock (chat completions):
 * the OpenAI SDK under pi retries a 429/5xx twice itself, then pi writes one error leaf per
 * failed attempt and retries up to 3 times (2 s, 4 s, 8 s).
 */
const DIR = join(FIXTURES, 'pi', 'real-0.73.1')
const at = (name: string, id: string) => ({
  from: join(DIR, name),
  path: join(AGENT, 'sessions', '--tmp-pi-exp--', `2026-12-01T08-57-52-962Z_${id}.jsonl`),
})

const RETRIES = at('retries-500.jsonl', '01a230d3-2241-73f3-ad84-2ca48e528a3c')
const ERRORS = at('errors-401-529-429.jsonl', '01a230d4-8086-7650-9ec0-197d60065c57')
const read = (f: {from: string; path: string}, lines?: number) => feed(f.path, {from: f.from, lines})

describe('pi 0.73.1 retries (real file: a 500 retried once then answered; then four 500s)', () => {
  it('an error leaf that pi retries is working, not an error; the failed request is no message', () => {
    // header, model_change, thinking_level_change, prompt, error leaf "500 mock 500"
    const f = read(RETRIES, 5).facts

    expect(f).toMatchObject({error: null, messages: 1, settled: false, turnIndex: 1})
  })

  it('the retry that answers settles the turn; only the prompt and the answer count', () => {
    const f = read(RETRIES, 6).facts

    expect(f).toMatchObject({error: null, lastAssistantText: 'Nothing more to do.', messages: 2, settled: true})
  })

  it('retries 1 to 3 of the second turn still read working', () => {
    for (const lines of [8, 9, 10])
      expect(read(RETRIES, lines).facts).toMatchObject({error: null, messages: 3, settled: false, turnIndex: 2})
  })

  it('the fourth failure ends the turn: the error pi shows once its retries are spent', () => {
    const fed = read(RETRIES)

    expect(fed.rejected).toBe(0)
    expect(fed.facts).toMatchObject({messages: 3, settled: true, turnIndex: 2})
    expect(fed.facts.error?.text).toBe('Retry failed after 3 attempts: 500 mock 500')
    expect(fed.facts.error?.source).toEqual({kind: 'transcript', offset: fed.lines.at(-1)!.offset, ref: RETRIES.path})
  })

  it('reads the same with the state round-tripped through JSON between lines', () => {
    expect(feed(RETRIES.path, {from: RETRIES.from, roundTrip: true}).facts).toEqual(read(RETRIES).facts)
  })
})

describe('pi 0.73.1 errors pi does not retry (real file: 401, then 529, then a 429 retried)', () => {
  it('401 is not retried: needs_input with the error at once', () => {
    const f = read(ERRORS, 5).facts

    expect(f).toMatchObject({messages: 1, settled: true})
    expect(f.error?.text).toBe('401 mock 401')
  })

  it('a 529 whose message does not say "overloaded" is not retried by pi either', () => {
    const f = read(ERRORS, 7).facts

    expect(f).toMatchObject({messages: 2, settled: true, turnIndex: 2})
    expect(f.error?.text).toBe('529 mock 529')
  })

  it('a 429 is retried (working) and the answer after it settles without an error', () => {
    expect(read(ERRORS, 9).facts).toMatchObject({error: null, messages: 3, settled: false, turnIndex: 3})
    expect(read(ERRORS).facts).toMatchObject({error: null, lastAssistantText: 'after 429', messages: 4, settled: true})
  })
})

describe('pi 0.73.1 over a bad stream (real file: a truncated stream, then a garbage chunk)', () => {
  const BAD = at('bad-stream.jsonl', '01a230d3-0000-7000-8000-0000000000ba')

  it('the cut stream ("terminated") is retried: working', () => {
    expect(read(BAD, 5).facts).toMatchObject({error: null, messages: 1, settled: false})
  })

  it('the garbage chunk is a JSON error pi does not retry: the error as pi shows it, the partial text kept', () => {
    const fed = read(BAD)

    expect(fed.rejected).toBe(0)
    expect(fed.facts).toMatchObject({lastAssistantText: 'A reply with a gar', messages: 2, settled: true})
    expect(fed.facts.error?.text).toBe("Expected property name or '}' in JSON at position 1")
  })
})
