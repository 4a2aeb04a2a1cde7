/**
 * What a Codex session holds, read from rollouts written by the real Codex CLI 0.169.0
 * (test/fixtures/codex/real-0.169.0) and cast's own fixtures: the token figures equal the last
 * `token_count` total the rollout itself reports.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {codex} from '../../../src/adapters/codex/index.js'
import {patchPaths} from '../../../src/adapters/codex/usage.js'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'
import type {SessionHolds} from '../../../src/core/model/types.js'
import {feed, HOME, IDS, rolloutPath} from './helpers.js'

const DIR = join(HOME, 'real-0.169.0')
const realPath = (name: string): string => join(DIR, name, readdirSync(join(DIR, name))[0]!)

/** Feed a rollout as the engine does (the real ones sit outside the fixture CODEX_HOME: their match is given). */
function holdsOf(path: string, append: string[] = [], upTo?: number): SessionHolds {
  if (path.startsWith(DIR)) {
    const id = /-([0-9a-f-]{36})\.jsonl$/.exec(path)![1]!
    const match = {kind: 'jsonl', nativeId: id} as const
    const parser = codex.jsonl!
    let state = parser.init(path, match)
    const lines = [
      ...readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .slice(0, upTo),
      ...append,
    ]
    let offset = 0
    for (const text of lines) {
      state = JSON.parse(JSON.stringify(state)) as unknown
      feedLine(parser, state, text, offset)
      offset += Buffer.byteLength(text) + 1
    }
    return codex.compose!(
      id,
      parser.contributions(state, path, match).filter((c) => c.nativeId === id),
    ).holds!
  }
  const fed = feed(path, {append, roundTrip: true})
  const id = fed.match.nativeId
  return codex.compose!(
    id,
    fed.contributions.filter((c) => c.nativeId === id),
  ).holds!
}

/** The rollout's own figure: the last token_count's total_token_usage. */
function lastTotal(path: string): Record<string, number> | null {
  let last: Record<string, number> | null = null
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.includes('"token_count"')) continue
    const info = (JSON.parse(line) as {payload?: {info?: {total_token_usage?: Record<string, number>} | null}}).payload?.info
    if (info?.total_token_usage) last = info.total_token_usage
  }
  return last
}

describe('Codex holds: token usage from token_count events', () => {
  it.each(['exec-plain', 'tui-background', 'exec-429'])('real 0.169.0 %s: equals the last token_count total', (name) => {
    const path = realPath(name)
    const h = holdsOf(path)
    const t = lastTotal(path)
    if (t === null) {
      expect(h.usage).toBeNull()
      return
    }
    const u = h.usage!
    expect(u.input + u.cacheRead + u.cacheWrite).toBe(t['input_tokens'])
    expect(u.cacheRead).toBe(t['cached_input_tokens'])
    expect(u.output).toBe(t['output_tokens'])
    expect(u.input + u.output + u.cacheRead + u.cacheWrite).toBe(t['total_tokens'])
  })

  it('tui-background: cumulative, so the last one (200 in, 24 out), not the sum of all; a background terminal until it completes', () => {
    const path = realPath('tui-background')
    expect(holdsOf(path).usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 200, output: 24})
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
    const upTo = lines.findIndex((l) => l.includes('"CommandExecution"') && l.includes('"process_id"'))
    expect(upTo).toBeGreaterThan(0)
    expect(holdsOf(path, [], upTo).background).toEqual(['terminal 77089'])
    expect(holdsOf(path).background).toEqual([])
  })

  it('a token_count with absurd, negative or missing totals is unknown and counted; the last good one stands', () => {
    const tc = (total: unknown) =>
      JSON.stringify({
        payload: {info: {total_token_usage: total}, type: 'token_count'},
        timestamp: '2026-12-01T09:53:09.000Z',
        type: 'event_msg',
      })
    const h = holdsOf(realPath('exec-plain'), [
      tc({input_tokens: 1e18, output_tokens: 1}),
      tc({input_tokens: -1, output_tokens: 1}),
      tc({output_tokens: 1}),
      tc({cached_input_tokens: 50, input_tokens: 40, output_tokens: 1}),
    ])
    expect(h.usage).toEqual({cacheRead: 0, cacheWrite: 0, input: 100, output: 12})
    expect(h.unknownUsage).toBe(4)
  })

  it('apply_patch: the files of the patch, counted when its output came back; the model from turn_context', () => {
    const h = holdsOf(rolloutPath(IDS.settled))
    expect(h.changed).toEqual([{count: 1, path: 'parser.test.ts'}])
    expect(h.models).toContain('gpt-5.5-codex')
  })

  it('0.169: a FileChange item counts its paths once (not again at the call output); an unsupported apply_patch counts nothing', () => {
    const line = (type: string, payload: Record<string, unknown>) => JSON.stringify({payload, timestamp: '2026-12-01T09:46:18.000Z', type})
    const patch = '*** Begin Patch\n*** Add File: made.txt\n+hello\n*** End Patch\n'
    const h = holdsOf(realPath('exec-plain'), [
      line('response_item', {
        arguments: JSON.stringify({cmd: `apply_patch <<'EOF'\n${patch}EOF\n`}),
        call_id: 'c1',
        name: 'exec_command',
        type: 'function_call',
      }),
      line('event_msg', {
        item: {changes: {'/w/made.txt': {content: 'hello\n', type: 'add'}}, id: 'c1', status: 'completed', type: 'FileChange'},
        type: 'item_completed',
      }),
      line('response_item', {
        call_id: 'c1',
        output: 'Exit code: 0\nOutput:\nSuccess. Updated the following files:\nA made.txt\n',
        type: 'function_call_output',
      }),
      line('response_item', {
        arguments: JSON.stringify({input: patch.replace('made', 'other')}),
        call_id: 'c2',
        name: 'apply_patch',
        type: 'function_call',
      }),
      line('response_item', {call_id: 'c2', output: 'unsupported call: apply_patch', type: 'function_call_output'}),
      line('event_msg', {
        item: {changes: {'/w/failed.txt': {type: 'update'}}, id: 'c3', status: 'failed', type: 'FileChange'},
        type: 'item_completed',
      }),
    ])
    expect(h.changed).toEqual([{count: 1, path: '/w/made.txt'}])
    expect(h.running).toEqual([])
  })

  it('patch paths: add, update, delete and move', () => {
    expect(
      patchPaths(
        '*** Begin Patch\n*** Add File: a.ts\n+x\n*** Update File: b.ts\n*** Move to: c.ts\n*** Delete File: d.ts\n*** End Patch\n',
      ),
    ).toEqual(['a.ts', 'b.ts', 'c.ts', 'd.ts'])
  })
})
