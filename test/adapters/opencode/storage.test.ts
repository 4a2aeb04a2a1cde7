import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {opencode, parseStorageFile} from '../../../src/adapters/opencode/index.js'
import {DATA, discoverStorage, storageFacts} from './helpers.js'

const at = (s: number): number => Date.parse('2026-07-01T08:00:00.000Z') + s * 1000
const STORAGE = join(DATA, 'opencode', 'storage')
const ID = {
  child: 'ses_s4childaaaaaaaaaaaaaaaaaa',
  error: 'ses_s3erroraaaaaaaaaaaaaaaaaa',
  placeholder: 'ses_s6placeholderaaaaaaaaaaaa',
  question: 'ses_s5questionaaaaaaaaaaaaaaa',
  settled: 'ses_s1settledaaaaaaaaaaaaaaaa',
  working: 'ses_s2workingaaaaaaaaaaaaaaaa',
}

describe('OpenCode < 1.2: storage/ JSON files', () => {
  it('finds sessions, messages and parts; skips project/, todo/, snapshot/ and the per-process logs of < 1.18', () => {
    const found = discoverStorage()
    const roles = found.map((d) => (d.match.kind === 'whole' ? d.match.role : d.match.kind))

    expect(roles.filter((r) => r === 'session')).toHaveLength(6)
    expect(roles.filter((r) => r === 'message')).toHaveLength(13)
    expect(roles.filter((r) => r === 'part').length).toBeGreaterThan(10)
    expect(found.some((d) => /[/\\](project|todo|snapshot|log)[/\\]/.test(d.path))).toBe(false)
  })

  it('settled: the last assistant completed with finish "stop"', () => {
    expect(storageFacts().get(ID.settled)).toMatchObject({
      createdAt: at(0),
      cwd: '/home/dev/projects/api',
      error: null,
      lastActivityAt: at(30),
      lastOutputAt: at(29),
      messages: 3,
      model: 'claude-sonnet-4-5',
      parentNativeId: null,
      question: null,
      settled: true,
      title: 'Tighten the rate limiter',
      turnIndex: 1,
      turnStartedAt: at(0),
    })
  })

  it('names the file behind each fact', () => {
    const f = storageFacts().get(ID.settled)!

    expect(f.sources.settled).toEqual({kind: 'storage', ref: join(STORAGE, 'message', ID.settled, 'msg_s1c.json')})
    expect(f.sources.title).toEqual({kind: 'storage', ref: join(STORAGE, 'session', 'global', `${ID.settled}.json`)})
  })

  it('working: a running bash tool part', () => {
    const f = storageFacts().get(ID.working)!

    expect(f.settled).toBe(false)
    expect(f.sources.settled?.ref).toBe(join(STORAGE, 'part', 'msg_s2b', 'prt_s2b_3.json'))
  })

  it('error: ProviderAuthError with its message', () => {
    expect(storageFacts().get(ID.error)).toMatchObject({error: {at: at(203), text: 'Anthropic API key is invalid'}, settled: true})
  })

  it('subagent: parentID names the parent session', () => {
    expect(storageFacts().get(ID.child)).toMatchObject({model: 'claude-haiku-4-5', parentNativeId: ID.working, settled: false})
  })

  it('question: a running question tool part', () => {
    expect(storageFacts().get(ID.question)).toMatchObject({question: {at: at(304), text: 'Tailwind or plain CSS modules?'}, settled: false})
  })

  it('aborted is settled; a placeholder title is no title here (text parts are not kept)', () => {
    expect(storageFacts().get(ID.placeholder)).toMatchObject({error: null, settled: true, title: null})
  })

  it('only tool parts still pending or running are kept; finished ones and text are not', () => {
    const kept = discoverStorage()
      .filter((d) => d.match.kind === 'whole' && d.match.role === 'part')
      .flatMap((d) => opencode.parseWhole!(d.path, readFileSync(d.path, 'utf8'), d.match as {kind: 'whole'; role: string}))

    expect(kept.map((c) => (c.extra?.part as {tool: string}).tool).sort()).toEqual(['bash', 'question'])
  })

  it('a file caught mid-write throws for the engine to count; an unknown record gives nothing', () => {
    const path = join(STORAGE, 'message', ID.settled, 'msg_s1c.json')
    const text = readFileSync(path, 'utf8')

    expect(() => parseStorageFile(path, text.slice(0, 40), {kind: 'whole', nativeId: ID.settled, role: 'message'})).toThrow()
    expect(() => parseStorageFile(path, '[]', {kind: 'whole', nativeId: ID.settled, role: 'message'})).toThrow()
    expect(parseStorageFile(path, '{"id":"msg_x"}', {kind: 'whole', nativeId: ID.settled, role: 'message'})).toEqual([])
  })
})
