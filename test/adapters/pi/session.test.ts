import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {at, facts, feed, lineAt, sessionPath, uuid} from './helpers.js'

const line = (o: Record<string, unknown>): string => JSON.stringify(o)

describe('pi sessions: the turn from the leaf', () => {
  it('settled: the leaf assistant stopped ("stop"); a label after it changes nothing', () => {
    const f = facts(1)

    expect(f).toMatchObject({
      createdAt: at(0),
      cwd: '/home/dev/projects/api',
      error: null,
      lastActivityAt: at(30),
      lastAssistantText: 'Pagination is in: `?page=` and `?per_page=` (default 50).',
      lastOutputAt: at(20),
      messages: 3,
      model: 'claude-sonnet-4-5',
      parentNativeId: null,
      parseErrors: 0,
      process: null,
      question: null,
      approval: null,
      settled: true,
      title: 'Add pagination to the /users endpoint',
      turnIndex: 1,
      turnStartedAt: at(1),
    })
  })

  it('keeps the file and byte offset of the line behind each fact', () => {
    const fed = feed(sessionPath(1))
    const s = fed.facts.sources

    expect(s.settled?.ref).toBe(sessionPath(1))
    expect(lineAt(fed, s.settled?.offset)).toContain('"stopReason":"stop"')
    expect(lineAt(fed, s.title?.offset)).toContain('Add pagination')
    expect(lineAt(fed, s.cwd?.offset)).toContain('"type":"session"')
    expect(lineAt(fed, s.model?.offset)).toContain('"id":"0a0a0a06"')
  })

  it('working: a tool result is the leaf, the model has not answered it yet', () => {
    const f = facts(2)

    expect(f).toMatchObject({
      messages: 2,
      model: 'gpt-5.1-codex',
      settled: false,
      title: 'Run the e2e suite and fix what fails',
      turnIndex: 1,
    })
    expect(f.lastOutputAt).toBe(at(95))
  })

  it('a leaf assistant asking for a tool (stopReason "toolUse") is working', () => {
    const f = facts(2, {lines: 4})

    expect(f.settled).toBe(false)
    expect(feed(sessionPath(2), {lines: 4}).state.tailWhy).toBe('tool_use')
  })

  it('a prompt with no reply written yet is working (pi writes a reply when it ends)', () => {
    const f = facts(1, {lines: 4})

    expect(f).toMatchObject({messages: 1, settled: false, turnIndex: 1})
  })

  it('a 429 leaf is pi retrying (it retries up to 3 times): working, no error, not a message', () => {
    for (const lines of [3, 4, 5]) {
      const fed = feed(sessionPath(3), {lines})

      expect(fed.facts).toMatchObject({error: null, messages: 1, settled: false})
      expect(fed.state.tailWhy).toBe('retrying')
    }
  })

  it('error: the fourth failure in a row ends the turn; the last message, as pi words it, is the hard block', () => {
    const fed = feed(sessionPath(3))

    expect(fed.facts.settled).toBe(true)
    expect(fed.facts.messages).toBe(1)
    expect(fed.facts.error).toEqual({
      at: at(124),
      source: {kind: 'transcript', offset: fed.lines.at(-1)!.offset, ref: sessionPath(3)},
      text: 'Retry failed after 3 attempts: 429 rate_limit_error: This request would exceed the rate limit for your organization',
    })
  })

  it('an error pi does not retry ends the turn at once; its text is kept as pi wrote it', () => {
    const err = (message: string) => {
      const f = feed(sessionPath(3), {
        lines: 2,
        append: [
          line({
            id: 'e1',
            message: {content: [], errorMessage: message, role: 'assistant', stopReason: 'error'},
            parentId: '0c0c0c01',
            timestamp: new Date(at(130)).toISOString(),
            type: 'message',
          }),
        ],
      }).facts
      return f.error?.text
    }

    expect(err('401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}')).toBe(
      '401 authentication_error: invalid x-api-key',
    )
    expect(err('400 {not json')).toBe('400 {not json')
    expect(err('Connection error.')).toBeUndefined()
    expect(err('500 {"message":"Internal server error"}')).toBeUndefined()
  })

  it('"terminated" is retried only by the pi that retries it (header version 3); an older session (no version) ends on any error', () => {
    const original = readFileSync(sessionPath(3), 'utf8')
    const dir = mkdtempSync(join(tmpdir(), 'cast-pi-'))
    const fed = (version: number | null, message: string) => {
      const header = JSON.parse(original.split('\n')[0]!) as Record<string, unknown>
      if (version === null) delete header.version
      else header.version = version
      const from = join(dir, `v${version}.jsonl`)
      writeFileSync(from, [JSON.stringify(header), ...original.split('\n').slice(1)].join('\n'))
      return feed(sessionPath(3), {
        append: [
          line({
            id: 'e1',
            message: {content: [], errorMessage: message, role: 'assistant', stopReason: 'error'},
            parentId: '0c0c0c01',
            timestamp: new Date(at(130)).toISOString(),
            type: 'message',
          }),
        ],
        from,
        lines: 2,
      })
    }

    try {
      expect(fed(3, 'terminated').state.tailWhy).toBe('retrying')
      expect(fed(2, 'terminated').facts.error?.text).toBe('terminated')
      expect(fed(2, '500 {"message":"Internal server error"}').state.tailWhy).toBe('retrying')
      for (const message of ['terminated', '500 {"message":"Internal server error"}']) {
        const old = fed(null, message)
        expect(old.facts.settled).toBe(true)
        expect(old.facts.error).not.toBe(null)
      }
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })

  it('a new prompt after an error clears it and starts a turn', () => {
    const f = facts(3, {
      append: [
        line({
          id: '0c0c0c03',
          message: {content: 'try again', role: 'user', timestamp: at(200)},
          parentId: '0c0c0c02',
          timestamp: new Date(at(200)).toISOString(),
          type: 'message',
        }),
      ],
    })

    // The failed request is no message: the two prompts are.
    expect(f).toMatchObject({error: null, messages: 2, settled: false, turnIndex: 2, turnStartedAt: at(200)})
  })

  it('aborted (the user pressed Escape) is settled and no error', () => {
    const f = facts(4)

    expect(f).toMatchObject({error: null, lastAssistantText: 'Starting with', settled: true})
  })

  it('rename: the latest session_info name is the title; an empty one does not clear it', () => {
    const fed = feed(sessionPath(5))

    expect(fed.facts.title).toBe('README rewrite')
    expect(lineAt(fed, fed.facts.sources.title?.offset)).toContain('README rewrite')
    expect(fed.facts.settled).toBe(true)
  })

  it('without a session_info name, the title is the first prompt', () => {
    expect(facts(5, {lines: 3}).title).toBe('Write the README')
  })
})

describe('pi sessions: the tree (v2, v3)', () => {
  it('a branch summary means the user moved the leaf back at the prompt: settled', () => {
    const fed = feed(sessionPath(6))

    expect(fed.facts).toMatchObject({messages: 4, settled: true, turnIndex: 2})
    expect(fed.state.tailWhy).toBe('navigated')
    expect(lineAt(fed, fed.facts.sources.settled?.offset)).toContain('"type":"branch_summary"')
  })

  it('an entry hung under an older one (navigation without a summary) is settled too', () => {
    const f = facts(7)

    expect(f).toMatchObject({model: 'claude-opus-4-5', settled: true})
  })

  it('a prompt on the new branch starts a turn again', () => {
    const f = facts(7, {
      append: [
        line({
          id: '10101006',
          message: {content: [{text: 'Add DELETE, but soft-delete', type: 'text'}], role: 'user', timestamp: at(390)},
          parentId: '10101005',
          timestamp: new Date(at(390)).toISOString(),
          type: 'message',
        }),
      ],
    })

    expect(f).toMatchObject({settled: false, turnIndex: 3})
  })

  it('navigating away from an error clears the banner', () => {
    const f = facts(3, {
      append: [
        line({
          fromId: '0c0c0c02',
          id: '0c0c0c03',
          parentId: '0c0c0c01',
          summary: 'gave up',
          timestamp: new Date(at(130)).toISOString(),
          type: 'branch_summary',
        }),
      ],
    })

    expect(f).toMatchObject({error: null, settled: true})
  })

  it('a fork names its parent session (by the uuid in the parent file name) but stays a row of its own', () => {
    const fed = feed(sessionPath(8))

    expect(fed.facts.parentNativeId).toBe(null)
    expect(fed.contributions[0]!.extra).toMatchObject({forkedFrom: uuid(1), version: 3})
    expect(fed.facts.sources.forkedFrom?.offset).toBe(0)
    expect(fed.facts).toMatchObject({settled: true, title: 'Try cursor-based pagination instead'})
  })

  it('a context overflow followed by a compaction is pi retrying: working, no error', () => {
    const fed = feed(sessionPath(9))

    expect(fed.facts).toMatchObject({error: null, settled: false})
    expect(fed.state).toMatchObject({compactions: 1, tailWhy: 'compaction_retry'})
    expect(lineAt(fed, fed.facts.sources.compaction?.offset)).toContain('"type":"compaction"')
  })

  it('before the compaction, the overflow reads as an error', () => {
    expect(facts(9, {lines: 5}).error?.text).toBe('prompt is too long: 212345 tokens > 200000 maximum')
  })

  it('a compaction after a finished turn, and the user running !cmd, leave it settled', () => {
    const fed = feed(sessionPath(10))

    expect(fed.facts).toMatchObject({messages: 2, settled: true})
    expect(fed.state.compactions).toBe(1)
  })

  it('v2: a hook message after the answer starts no turn; "length" ends one', () => {
    const fed = feed(sessionPath(11))

    expect(fed.facts).toMatchObject({messages: 2, settled: true})
    expect(fed.contributions[0]!.extra).toMatchObject({version: 2})
  })
})

describe('pi sessions: incremental and malformed input', () => {
  it('the state survives a JSON round trip between every line', () => {
    for (const n of [1, 2, 3, 5, 6, 7, 9]) {
      expect(facts(n, {roundTrip: true})).toEqual(facts(n))
    }
  })

  it('the state stays small: a few scalars, however long the file', () => {
    const long = Array.from({length: 400}, (_, i) =>
      line({
        id: `ff${String(i).padStart(6, '0')}`,
        message: {content: 'next', role: 'user'},
        parentId: i === 0 ? '0a0a0a07' : `ff${String(i - 1).padStart(6, '0')}`,
        timestamp: new Date(at(100 + i)).toISOString(),
        type: 'message',
      }),
    )
    const fed = feed(sessionPath(1), {append: long})

    expect(fed.facts.turnIndex).toBe(401)
    expect(JSON.stringify(fed.state).length).toBeLessThan(2000)
  })

  it('a cut line is rejected and counted; the rest is read; a partial last line waits', () => {
    const fed = feed(sessionPath(12))

    expect(fed.rejected).toBe(1)
    expect(fed.facts).toMatchObject({lastAssistantText: 'Bumped 12 packages; tests pass.', messages: 2, parseErrors: 1, settled: true})
  })

  it('lines that are not entries are rejected, never thrown', () => {
    const fed = feed(sessionPath(1), {append: ['[1,2,3]', '"text"', 'null', '{"no":"type"}', '', '   ']})

    expect(fed.rejected).toBe(4)
    expect(fed.facts.settled).toBe(true)
  })

  it('a file whose header line is missing still gives what its entries say', () => {
    const fed = feed(sessionPath(1), {
      lines: 0,
      append: feed(sessionPath(1))
        .lines.slice(1)
        .map((l) => l.text),
    })

    expect(fed.facts).toMatchObject({cwd: null, messages: 3, settled: true, title: 'Add pagination to the /users endpoint'})
  })
})
