/**
 * What a session holds for pi, Gemini CLI and Copilot CLI, read from files their real CLIs wrote
 * (test/fixtures/<agent>/real-*, test/fixtures/real/pi): the sums equal the usage each file reports.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {copilot} from '../../../src/adapters/copilot/index.js'
import {gemini} from '../../../src/adapters/gemini/index.js'
import {pi} from '../../../src/adapters/pi/index.js'
import type {Adapter} from '../../../src/core/ingest/adapter.js'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'
import {composeFacts} from '../../../src/core/ingest/compose.js'
import type {SessionHolds} from '../../../src/core/model/types.js'

const FIX = fileURLToPath(new URL('../../fixtures/', import.meta.url))

function holdsOf(adapter: Adapter, file: string, nativeId: string): SessionHolds | undefined {
  const match = {kind: 'jsonl', nativeId} as const
  const parser = adapter.jsonl!
  let state = parser.init(file, match)
  let offset = 0
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text.trim() !== '') {
      state = JSON.parse(JSON.stringify(state)) as unknown
      feedLine(parser, state, text, offset)
    }
    offset += Buffer.byteLength(text) + 1
  }
  const list = parser.contributions(state, file, match)
  const id = list[0]!.nativeId
  const own = list.filter((c) => c.nativeId === id)
  return (adapter.compose ? adapter.compose(id, own) : composeFacts(own)).holds
}

const lines = (file: string): Record<string, any>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as Record<string, any>
      } catch {
        return {}
      }
    })

describe('pi', () => {
  it.each([
    join(FIX, 'real', 'pi', 'large-session.head15.jsonl'),
    ...readdirSync(join(FIX, 'pi', 'real-0.73.1'))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join(FIX, 'pi', 'real-0.73.1', f)),
  ])('%s: the sums equal every assistant message usage', (file) => {
    const want = {cacheRead: 0, cacheWrite: 0, input: 0, output: 0}
    for (const r of lines(file)) {
      const u = r['message']?.role === 'assistant' ? r['message'].usage : null
      if (!u) continue
      want.input += u.input
      want.output += u.output
      want.cacheRead += u.cacheRead
      want.cacheWrite += u.cacheWrite
    }
    expect(holdsOf(pi, file, 'pi-session')?.usage).toEqual(want)
  })

  it('the real large session: its edit is a changed file once its result came back; models in first-use order', () => {
    const h = holdsOf(pi, join(FIX, 'real', 'pi', 'large-session.head15.jsonl'), 'pi-session')!
    expect(h.models).toEqual(['gpt-5.1-codex', 'claude-sonnet-4-5'])
    // The head of the file ends on the edit call, its result not yet written: running, not changed.
    expect(h.changed).toEqual([])
    expect(h.running.map((r) => r.name)).toEqual(['edit'])
  })
})

describe('Gemini CLI 0.61.0', () => {
  it.each(readdirSync(join(FIX, 'gemini', 'real-0.61.0')).filter((f) => f.endsWith('.jsonl')))(
    '%s: the sums equal each message tokens once',
    (name) => {
      const file = join(FIX, 'gemini', 'real-0.61.0', name)
      const byId = new Map<string, Record<string, number>>()
      for (const r of lines(file)) if (r['type'] === 'gemini' && r['tokens']) byId.set(r['id'], r['tokens'])
      const h = holdsOf(gemini, file, 'gemini-session')
      if (byId.size === 0) return expect(h?.usage ?? null).toBeNull()
      const total = [...byId.values()].reduce((t, x) => t + (x['total'] ?? 0), 0)
      const u = h!.usage!
      expect(u.input + u.output + u.cacheRead + u.cacheWrite).toBe(total)
    },
  )
})

describe('Copilot CLI 1.0.102', () => {
  const dir = join(FIX, 'copilot', 'real-1.0.102', 'session-state')
  it.each(readdirSync(dir))('%s: the sums equal the usage records and the shutdown accounting', (sid) => {
    const file = join(dir, sid, 'events.jsonl')
    const recs = lines(file).filter((r) => r['type'] === 'session.usage_record')
    const h = holdsOf(copilot, file, sid)
    const input = recs.reduce((t, r) => t + r['data'].usage.inputTokens, 0)
    const output = recs.reduce((t, r) => t + r['data'].usage.outputTokens, 0)
    expect(h?.usage).toMatchObject({output})
    expect(h!.usage!.input + h!.usage!.cacheRead + h!.usage!.cacheWrite).toBe(input)
    const shutdown = lines(file).find((r) => r['type'] === 'session.shutdown')
    if (shutdown) {
      const metrics = Object.values(
        shutdown['data'].accountingSnapshot.modelMetrics as Record<string, {usage: {inputTokens: number; outputTokens: number}}>,
      )
      expect(metrics.reduce((t, m) => t + m.usage.outputTokens, 0)).toBe(output)
    }
    expect(h?.models).toContain('gpt-4o')
  })
})
