/**
 * Chat files the real Gemini CLI 0.61.0 wrote in the conformance runs (test/conformance/gemini.test.ts),
 * kept whole in test/fixtures/gemini/real-0.61.0/ (nothing trimmed: there are no secrets offline).
 */
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {chatLogParser} from '../../../src/adapters/gemini/index.js'
import type {GeminiMatch} from '../../../src/adapters/gemini/paths.js'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'

const DIR = fileURLToPath(new URL('../../fixtures/gemini/real-0.61.0/', import.meta.url))
const match = {
  cwd: '/work',
  kind: 'jsonl',
  nativeId: 'x',
  parentNativeId: null,
  project: 'work',
  role: 'chat',
} as const satisfies GeminiMatch

/** The facts after the first `n` lines of a fixture (all of them by default). */
function facts(name: string, n?: number) {
  const lines = readFileSync(DIR + name, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
  const state = chatLogParser.init(DIR + name, match)
  let offset = 0
  for (const line of lines.slice(0, n ?? lines.length)) {
    expect(feedLine(chatLogParser, state, line, offset)).toBe(true)
    offset += Buffer.byteLength(line) + 1
  }

  const [c] = chatLogParser.contributions(state, DIR + name, match)
  return c!.facts
}

describe('Gemini CLI 0.61.0 chat files', () => {
  it('a fresh TUI: the injected <session_context> message of the line-2 checkpoint is no prompt', () => {
    const f = facts('fresh.jsonl')
    expect([f.messages, f.turnIndex, f.title, f.settled]).toEqual([0, 0, null, false])
  })

  it('a plain answer: one prompt, one reply, settled', () => {
    const f = facts('plain.jsonl')
    expect([f.messages, f.turnIndex, f.title, f.settled]).toEqual([2, 1, 'say hello', true])
  })

  it('a tool call written first with empty content and no toolCalls: the turn runs', () => {
    const f = facts('approval-open.jsonl')
    expect([f.messages, f.turnIndex, f.settled]).toEqual([2, 1, false])
  })

  it('tool results (a user message of functionResponse parts) are no prompt; the reply after them settles', () => {
    const all = readFileSync(DIR + 'tool-roundtrip.jsonl', 'utf8')
      .split('\n')
      .filter(Boolean)
    const results = all.findIndex((l) => l.includes('"functionResponse"'))
    expect(results).toBeGreaterThan(0)
    const mid = facts('tool-roundtrip.jsonl', results + 1)
    expect([mid.messages, mid.turnIndex, mid.settled]).toEqual([2, 1, false])
    const end = facts('tool-roundtrip.jsonl')
    expect([end.messages, end.turnIndex, end.settled, end.lastAssistantText]).toEqual([3, 1, true, 'long done'])
  })

  it('a 401: the checkpoint drops the prompt, then the error line; the error stands and the prompt still counts', () => {
    const f = facts('error-401.jsonl')
    expect(f.error?.text).toMatch(/API Error: .*401/)
    expect([f.settled, f.messages, f.title]).toEqual([true, 1, 'fail'])
  })

  it('a cancel ("Request cancelled." then a checkpoint without the prompt) settles the turn; the next prompt starts one', () => {
    const all = readFileSync(DIR + 'cancel-then-prompt.jsonl', 'utf8')
      .split('\n')
      .filter(Boolean)
    const checkpoint = all.findIndex((l, i) => i > 1 && l.startsWith('{"$set":{"messages"'))
    expect(all[checkpoint - 2]).toContain('Request cancelled.')
    const cancelled = facts('cancel-then-prompt.jsonl', checkpoint + 1)
    expect([cancelled.settled, cancelled.messages, cancelled.error]).toEqual([true, 1, null])
    const next = facts('cancel-then-prompt.jsonl', checkpoint + 2)
    expect([next.settled, next.turnIndex]).toEqual([false, 2])
    const end = facts('cancel-then-prompt.jsonl')
    expect([end.settled, end.messages, end.lastAssistantText]).toEqual([true, 3, 'Second reply.'])
  })

  it('a denied tool (Esc): "Request cancelled.", a new <session_context>, a checkpoint of only that: settled, the prompt still counts', () => {
    const f = facts('denied.jsonl')
    expect([f.settled, f.messages, f.turnIndex, f.title, f.error]).toEqual([true, 2, 1, 'write it', null])
  })
})
