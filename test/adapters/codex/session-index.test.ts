import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {codex, parseSessionIndex} from '../../../src/adapters/codex/index.js'
import {HOME, IDS, completeLines, factsOf} from './helpers.js'

const INDEX = join(HOME, 'session_index.jsonl')

describe('codex session_index.jsonl', () => {
  it('newest entry per id wins, by updated_at; malformed lines are skipped', () => {
    const contributions = codex.parseWhole!(INDEX, readFileSync(INDEX, 'utf8'), {kind: 'whole', role: 'session_index'})

    const titles = Object.fromEntries(contributions.map((c) => [c.nativeId, c.extra?.title]))
    expect(titles).toEqual({[IDS.archived]: 'Upgrade eslint to v9', [IDS.settled]: 'Fix flaky parser test'})
  })

  it('an empty name clears the title: the first prompt shows again', () => {
    const f = factsOf(IDS.error)

    expect(f.title).toBe('Summarise the open issues')
    expect(f.sources.title?.kind).toBe('transcript')
  })

  it('the index title beats the first prompt and points at its line', () => {
    const f = factsOf(IDS.settled)
    const lines = new Map(completeLines(readFileSync(INDEX)).map((l) => [l.offset, l.text]))

    expect(f.title).toBe('Fix flaky parser test')
    expect(f.sources.title?.kind).toBe('index')
    expect(f.sources.title?.ref).toBe(INDEX)
    expect(lines.get(f.sources.title!.offset!)).toContain('"thread_name":"Fix flaky parser test"')
  })

  it('carries the title outside facts, so an entry whose rollout is gone creates no session', () => {
    const [c] = parseSessionIndex('/i', '{"id":"gone","thread_name":"Deleted thread","updated_at":"2026-01-01T00:00:00Z"}\n')

    expect(c?.facts).toEqual({})
    expect(c?.nativeId).toBe('gone')
    expect(c?.priority).toBe(5)
  })

  it('without updated_at, the later line wins; a multi-line name keeps its first line', () => {
    const text = ['{"id":"a","thread_name":"first"}', '{"id":"a","thread_name":"  second\\nmore  "}', ''].join('\n')

    const [c] = parseSessionIndex('/i', text)

    expect(c?.extra?.title).toBe('second')
    expect(c?.extra?.offset).toBe(Buffer.byteLength('{"id":"a","thread_name":"first"}\n'))
  })
})
