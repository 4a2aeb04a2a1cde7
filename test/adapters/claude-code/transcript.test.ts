import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'
import {base, compose, ctx, feedFile, PROJ, parseWhole, REAL, sid, transcriptPath} from './engine.js'

const at = (seconds: number): number => base + seconds * 1000

const facts = (k: number, limit?: number) => compose(sid(k), feedFile(transcriptPath(k), {limit}).contributions)

describe('Claude Code transcripts (own fixtures)', () => {
  it('custom-title beats ai-title, even an ai-title written after it', () => {
    const f = facts(1)

    expect(f).toMatchObject({
      error: null,
      lastAssistantText: 'Done: the parser now streams.',
      messages: 2,
      model: 'claude-opus-4-6',
      settled: true,
      title: 'parser streaming',
      turnIndex: 1,
      turnStartedAt: at(1),
    })
  })

  it('before the custom title, the ai-title wins over the first prompt', () => {
    expect(facts(1, 10).title).toBe('Refactor parser to stream')
    expect(facts(1, 5).title).toBe('Refactor the parser')
  })

  it('an api_error retry is not an error; a local command after the turn keeps it settled', () => {
    const mid = facts(1, 5)

    expect(mid.error).toBeNull()
    expect(mid.settled).toBe(false)
    expect(facts(1).settled).toBe(true)
    expect(facts(1).lastActivityAt).toBe(at(31))
  })

  it('a question asked is a question hard block until its answer arrives', () => {
    const asked = facts(2, 3)
    const answered = facts(2)

    // Its options, as the AskUserQuestion input lists them (cast choose and the web answer view).
    expect(asked.question).toEqual({
      at: at(3),
      choices: [
        {description: 'one file', label: 'SQLite'},
        {description: 'a server', label: 'Postgres'},
      ],
      source: {kind: 'transcript', offset: expect.any(Number), ref: transcriptPath(2)},
      text: 'Which database should I use?',
    })
    expect(asked.settled).toBe(false)
    expect(answered.question).toBeNull()
    expect(answered).toMatchObject({lastAssistantText: 'SQLite it is. Created db.sqlite.', messages: 3, settled: true})
  })

  it('ExitPlanMode waiting is a question carrying the plan', () => {
    const f = facts(10)

    expect(f.question?.text).toContain('1. Set "type": "module"')
    expect(f.settled).toBe(false)
  })

  it('a crash mid-turn: an open tool call, no registry, so not settled and no process', () => {
    const f = facts(3)

    expect(f).toMatchObject({
      lastOutputAt: at(2.5),
      messages: 2,
      process: null,
      question: null,
      settled: false,
      turnIndex: 1,
    })
  })

  it('a background shell is open work until a task notification says it finished', () => {
    const open = facts(5, 5)
    const done = facts(5)

    expect(open).toMatchObject({backgroundWork: 1, settled: true})
    expect(done).toMatchObject({
      backgroundWork: 0,
      lastAssistantText: 'The build finished successfully.',
      messages: 4,
      queued: 0,
      settled: true,
      turnIndex: 1,
    })
  })

  it('a queued task notification not yet picked up counts as queued', () => {
    const f = facts(5, 6)

    expect(f).toMatchObject({backgroundWork: 0, queued: 1})
  })

  it('streamed lines sharing message.id count once; a malformed line is skipped and counted', () => {
    const fed = feedFile(transcriptPath(6))
    const f = compose(sid(6), fed.contributions)

    expect(fed.rejected).toBe(1)
    expect(f).toMatchObject({
      lastAssistantText: 'Two files:\n\na.txt and b.txt.',
      messages: 3,
      parseErrors: 1,
      settled: true,
    })
  })

  it('inline sidechain lines (CC 1.x) do not count toward the parent', () => {
    const f = facts(8)

    expect(f).toMatchObject({
      lastAssistantText: 'The README is one line long.',
      messages: 3,
      settled: true,
      title: 'Summarize the README with a subagent',
      turnIndex: 1,
    })
  })

  it('an API error banner stands until a new prompt and a reply', () => {
    const failed = facts(9, 4)
    const recovered = facts(9)

    expect(failed.error?.text).toBe('API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    expect(failed.error?.at).toBe(at(3))
    expect(failed.settled).toBe(true)
    expect(recovered.error).toBeNull()
    expect(recovered).toMatchObject({messages: 4, settled: true, turnIndex: 2, turnStartedAt: at(60)})
  })

  it('a session with only local commands is settled with no messages', () => {
    expect(facts(11)).toMatchObject({messages: 0, settled: true, title: null, turnIndex: 0})
  })
})

describe('subagents (CC 2.x layout)', () => {
  const childPath = join(PROJ, sid(7), 'subagents', 'agent-a7f3c21.jsonl')
  const metaPath = join(PROJ, sid(7), 'subagents', 'agent-a7f3c21.meta.json')
  const childId = `${sid(7)}/agent-a7f3c21`

  it('the parent waits on its Agent call', () => {
    expect(facts(7)).toMatchObject({parentNativeId: null, settled: false, title: 'Review the codebase for dead code'})
  })

  it('the child is its own session under the parent, titled by its description', () => {
    const child = feedFile(childPath).contributions
    const meta = parseWhole(metaPath)

    expect(child.map((c) => c.nativeId)).toEqual([childId])
    expect(compose(childId, child)).toMatchObject({
      messages: 3,
      parentNativeId: sid(7),
      settled: true,
      title: 'Find unused exports in src/',
    })
    expect(compose(childId, [...child, ...meta])).toMatchObject({parentNativeId: sid(7), title: 'Find dead code'})
  })

  it('a CC 2.0.x agent file beside the sessions finds its parent inside', () => {
    const fed = feedFile(childPath, {as: join(PROJ, 'agent-a7f3c21.jsonl')})

    expect(fed.contributions[0]?.nativeId).toBe(childId)
    expect(fed.contributions[0]?.facts.parentNativeId).toBe(sid(7))
  })
})

describe('incremental feeding', () => {
  const own = readdirSync(PROJ)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => join(PROJ, name))
  const real = readdirSync(REAL).map((name) => join(REAL, name))

  it.each([...own, join(PROJ, sid(7), 'subagents', 'agent-a7f3c21.jsonl')])('round-tripping the state gives one pass: %s', (file) => {
    expect(feedFile(file, {roundTrip: true}).contributions).toEqual(feedFile(file).contributions)
  })

  it.each(real)('round-tripping the state gives one pass: %s', (file) => {
    const as = join(PROJ, 'x.jsonl')
    expect(feedFile(file, {as, roundTrip: true}).contributions).toEqual(feedFile(file, {as}).contributions)
  })

  it('the state stays small however long the file', () => {
    const match = claudeCode.match(transcriptPath(6), ctx)
    if (match?.kind !== 'jsonl' || claudeCode.jsonl === undefined) throw new Error('no parser')
    const parser = claudeCode.jsonl
    const state: unknown = parser.init(transcriptPath(6), match)
    let offset = 0
    for (let i = 0; i < 5000; i++) {
      const lines = [
        {message: {content: `prompt ${i}`, role: 'user'}, timestamp: new Date(base + i * 10_000).toISOString(), type: 'user'},
        {
          message: {
            content: [{id: `t${i}`, input: {command: 'ls'}, name: 'Bash', type: 'tool_use'}],
            id: `m${i}a`,
            model: 'claude-opus-4-6',
            role: 'assistant',
          },
          timestamp: new Date(base + i * 10_000 + 1000).toISOString(),
          type: 'assistant',
        },
        {
          message: {content: [{content: 'x'.repeat(500), tool_use_id: `t${i}`, type: 'tool_result'}], role: 'user'},
          timestamp: new Date(base + i * 10_000 + 2000).toISOString(),
          type: 'user',
        },
        {
          message: {content: [{text: `reply ${i}`, type: 'text'}], id: `m${i}b`, model: 'claude-opus-4-6', role: 'assistant'},
          timestamp: new Date(base + i * 10_000 + 3000).toISOString(),
          type: 'assistant',
        },
      ]
      for (const line of lines) {
        const text = JSON.stringify(line)
        feedLine(parser, state, text, offset)
        offset += Buffer.byteLength(text) + 1
      }
    }

    expect(JSON.stringify(state).length).toBeLessThan(2000)
    expect(parser.contributions(state, transcriptPath(6), match)[0]?.facts).toMatchObject({
      messages: 15_000,
      settled: true,
      turnIndex: 5000,
    })
  })
})
