/**
 * What a Claude Code session holds, read from real transcripts as they are (test/fixtures/real/claude,
 * test/fixtures/claude-code/real-2.1.328): the token sums equal the transcript's own usage, each
 * message counted once however many lines it was written on.
 */
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import type {SessionHolds} from '../../../src/core/model/types.js'
import {compose, feedFile, feedReal, FIXTURES, PROJ} from './engine.js'

const REAL_2_1 = join(FIXTURES, 'claude-code', 'real-2.1.328')

/** The transcript's own figures: every assistant message's usage once (its last line), summed. */
function reported(file: string): {input: number; output: number; cacheRead: number; cacheWrite: number} {
  const byId = new Map<string, Record<string, number>>()
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    const rec = JSON.parse(line) as {type?: string; message?: {id?: string; usage?: Record<string, number>}}
    if (rec.type === 'assistant' && rec.message?.id && rec.message.usage) byId.set(rec.message.id, rec.message.usage)
  }
  const sum = {cacheRead: 0, cacheWrite: 0, input: 0, output: 0}
  for (const u of byId.values()) {
    sum.input += u['input_tokens'] ?? 0
    sum.output += u['output_tokens'] ?? 0
    sum.cacheRead += u['cache_read_input_tokens'] ?? 0
    sum.cacheWrite += u['cache_creation_input_tokens'] ?? 0
  }
  return sum
}

const holdsOfReal = (name: string): SessionHolds =>
  compose(name.replace(/\.jsonl$/, ''), feedReal(name, {roundTrip: true}).contributions).holds!

describe('Claude Code holds: token usage from transcript lines', () => {
  it.each([
    'happy-0-say-lol-session.jsonl',
    'happy-1-continue-run-ls-tool.jsonl',
    'happy-permission-prompt-aborted-with-interrupt.jsonl',
    'happy-api-error-rate-limit.jsonl',
  ])('%s: the sums equal the transcript usage, each message once', (name) => {
    const h = holdsOfReal(name)
    expect(h.usage).toEqual(reported(join(FIXTURES, 'real', 'claude', name)))
    expect(h.unknownUsage).toBe(0)
  })

  it('a message written on two lines (one per content block) is counted once', () => {
    const h = holdsOfReal('happy-permission-prompt-aborted-with-interrupt.jsonl')
    expect(h.usage).toEqual({cacheRead: 10491, cacheWrite: 5678, input: 4, output: 5})
    expect(h.models).toEqual(['claude-opus-4-20250514'])
  })

  it('the run-ls transcript: three messages summed, the tool call closed by its result', () => {
    const h = holdsOfReal('happy-1-continue-run-ls-tool.jsonl')
    expect(h.usage).toEqual({cacheRead: 17776, cacheWrite: 17755 + 17776 + 160, input: 14, output: 100})
    expect(h.running).toEqual([])
    expect(h.changed).toEqual([])
  })

  it('a synthetic API-error line counts zero tokens and names no model', () => {
    const h = holdsOfReal('happy-api-error-rate-limit.jsonl')
    expect(h.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 0, output: 0})
    expect(h.models).toEqual([])
  })

  it.each(['approval-full', 'bgshell-full', 'subagent-full'])('2.1.328 %s: the sums equal the transcript usage', (name) => {
    const file = join(REAL_2_1, `${name}.jsonl`)
    const id = name
    const fed = feedFile(file, {as: join(PROJ, `${id}.jsonl`), roundTrip: true})
    const h = compose(id, fed.contributions).holds!
    expect(h.usage).toEqual(reported(file))
    expect(h.usage!.input).toBeGreaterThan(0)
    expect(h.models).toEqual(['mock-model'])
  })
})

describe('Claude Code holds: bad usage is unknown, counted, never summed', () => {
  const line = (id: string, usage: unknown, content: unknown[] = [{text: 'x', type: 'text'}]): string =>
    JSON.stringify({
      message: {content, id, model: 'm', role: 'assistant', usage},
      sessionId: 's',
      timestamp: '2026-08-01T10:00:00.000Z',
      type: 'assistant',
    })

  function holdsOfLines(lines: string[]): SessionHolds {
    const dir = mkdtempSync(join(tmpdir(), 'cast-holds-'))
    try {
      const file = join(dir, 'x.jsonl')
      writeFileSync(file, lines.join('\n') + '\n')
      return compose('bad', feedFile(file, {as: join(PROJ, 'bad.jsonl')}).contributions).holds!
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  }

  it('missing, negative, fractional, string and absurd fields: each line unknown, the good one summed', () => {
    const h = holdsOfLines([
      line('a', {input_tokens: 10, output_tokens: 2}),
      line('b', undefined),
      line('c', {input_tokens: -5, output_tokens: 2}),
      line('d', {input_tokens: 1.5, output_tokens: 2}),
      line('e', {input_tokens: '7', output_tokens: 2}),
      line('f', {input_tokens: 1e18, output_tokens: 2}),
      line('g', {cache_read_input_tokens: 2e12, input_tokens: 1, output_tokens: 2}),
      line('h', {input_tokens: 3}),
    ])
    expect(h.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 10, output: 2})
    expect(h.unknownUsage).toBe(7)
  })

  it('a repeated message id with newer usage replaces the old, not adds', () => {
    const h = holdsOfLines([line('a', {input_tokens: 10, output_tokens: 1}), line('a', {input_tokens: 10, output_tokens: 12})])
    expect(h.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 10, output: 12})
  })

  it('changed files: Write, Edit, MultiEdit, NotebookEdit with counts; a denied edit is not counted; an open call runs', () => {
    const use = (id: string, name: string, input: Record<string, unknown>) =>
      line(`m-${id}`, {input_tokens: 1, output_tokens: 1}, [{id, input, name, type: 'tool_use'}])
    const result = (id: string, isError = false) =>
      JSON.stringify({
        message: {content: [{content: 'ok', is_error: isError, tool_use_id: id, type: 'tool_result'}], role: 'user'},
        sessionId: 's',
        type: 'user',
      })
    const h = holdsOfLines([
      use('t1', 'Write', {content: 'x', file_path: '/p/a.ts'}),
      result('t1'),
      use('t2', 'Edit', {file_path: '/p/a.ts', new_string: 'y', old_string: 'x'}),
      result('t2'),
      use('t3', 'MultiEdit', {edits: [], file_path: '/p/b.ts'}),
      result('t3'),
      use('t4', 'NotebookEdit', {new_source: '', notebook_path: '/p/n.ipynb'}),
      result('t4'),
      use('t5', 'Edit', {file_path: '/p/denied.ts'}),
      result('t5', true),
      use('t6', 'Bash', {command: 'sleep 100'}),
    ])
    expect(h.changed).toEqual([
      {count: 2, path: '/p/a.ts'},
      {count: 1, path: '/p/b.ts'},
      {count: 1, path: '/p/n.ipynb'},
    ])
    expect(h.running).toEqual([{name: 'Bash', since: Date.parse('2026-08-01T10:00:00.000Z')}])
  })
})
