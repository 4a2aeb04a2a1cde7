import {readFileSync} from 'node:fs'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'
import {describe, expect, it} from 'vitest'

import {codex} from '../../../src/adapters/codex/index.js'
import type {RolloutState} from '../../../src/adapters/codex/index.js'
import {IDS, completeLines, factsOf, feed, ms, rolloutFacts, rolloutPath} from './helpers.js'

const iso = (n: number | null): string | null => (n === null ? null : new Date(n).toISOString())

describe('codex rollout: current envelope (task_started / task_complete)', () => {
  it('a settled two-turn session', () => {
    const f = factsOf(IDS.settled)

    expect(f.cwd).toBe('/home/dev/projects/parser')
    expect(f.model).toBe('gpt-5.5-codex')
    expect(f.title).toBe('Fix flaky parser test')
    expect(iso(f.createdAt)).toBe('2026-04-27T19:01:00.745Z')
    expect(iso(f.lastActivityAt)).toBe('2026-04-27T19:05:32.000Z')
    expect(iso(f.lastOutputAt)).toBe('2026-04-27T19:05:31.000Z')
    expect(iso(f.turnStartedAt)).toBe('2026-04-27T19:05:00.000Z')
    expect(f.messages).toBe(4)
    expect(f.turnIndex).toBe(2)
    expect(f.settled).toBe(true)
    expect(f.error).toBe(null)
    expect(f.approval).toBe(null)
    expect(f.parentNativeId).toBe(null)
    expect(f.lastAssistantText).toBe('All 214 tests pass — no other test reads the clock.')
    expect(f.parseErrors).toBe(0)
  })

  it('keeps a source per fact: the file and the byte offset of the line', () => {
    const path = rolloutPath(IDS.settled)
    const f = rolloutFacts(IDS.settled)
    const lines = codexLines(path)

    const model = f.sources.model
    expect(model?.kind).toBe('transcript')
    expect(model?.ref).toBe(path)
    expect(lines.get(model!.offset!)).toContain('"model":"gpt-5.5-codex"')
    expect(lines.get(f.sources.settled!.offset!)).toContain('"type":"task_complete"')
    expect(lines.get(f.sources.title!.offset!)).toContain('Fix the flaky test in parser.test.ts')
  })

  it('without the index, the title is the first real prompt, one line, injected context skipped', () => {
    const f = rolloutFacts(IDS.settled)

    expect(f.title).toBe('Fix the flaky test in parser.test.ts')
  })

  it('an open function_call inside a running task is working', () => {
    const f = factsOf(IDS.working)

    expect(f.settled).toBe(false)
    expect(f.title).toBe('Migrate the users table to UUID keys')
    expect(f.messages).toBe(2)
    expect(f.turnIndex).toBe(1)
    expect(iso(f.lastOutputAt)).toBe('2026-04-27T20:15:46.000Z')
    expect(f.lastAssistantText).toBe("I'll check the current schema and migrations first.")
  })

  it('a final error is a hard block that outlives the turn end', () => {
    const f = factsOf(IDS.error)

    expect(f.error?.text).toBe("You've hit your usage limit. Upgrade to Pro or try again at 3:05 PM.")
    expect(f.error?.at).toBe(ms('2026-04-28T16:02:12.000Z'))
    expect(f.error?.source.kind).toBe('transcript')
    expect(f.settled).toBe(true)
    expect(f.turnIndex).toBe(2)
    expect(f.messages).toBe(3)
    expect(f.lastAssistantText).toBe('There are 7 open issues; 3 are about the importer.')
  })

  it('a later prompt or task_started clears the error', () => {
    const next = [
      '{"timestamp":"2026-04-28T16:20:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"turn-3","started_at":1777393200}}',
      '{"timestamp":"2026-04-28T16:20:00.010Z","type":"event_msg","payload":{"type":"user_message","message":"try again","images":[]}}',
    ]

    const afterTask = rolloutFacts(IDS.error, {append: next.slice(0, 1)})
    const afterPrompt = rolloutFacts(IDS.error, {append: next.slice(1)})

    expect(afterTask.error).toBe(null)
    expect(afterTask.settled).toBe(false)
    expect(afterTask.turnIndex).toBe(3)
    expect(afterPrompt.error).toBe(null)
    expect(afterPrompt.turnIndex).toBe(3)
  })

  it('stream_error is a retry: no error, and the turn goes on', () => {
    const during = rolloutFacts(IDS.retry, {lines: 8})
    const after = factsOf(IDS.retry)

    expect(during.error).toBe(null)
    expect(during.settled).toBe(false)
    expect(after.error).toBe(null)
    expect(after.settled).toBe(true)
    expect(after.lastAssistantText).toBe('It retries 5 times with exponential backoff capped at 30 s.')
  })

  it('an aborted turn is settled; the injected <turn_aborted> note is not a prompt', () => {
    const f = factsOf(IDS.aborted)

    expect(f.settled).toBe(true)
    expect(f.messages).toBe(1)
    expect(f.turnIndex).toBe(1)
    expect(f.title).toBe('Delete the build cache and rebuild')
    expect(f.lastAssistantText).toBe(null)
  })

  it('a spawned subagent names its parent thread', () => {
    const f = factsOf(IDS.spawned)

    expect(f.parentNativeId).toBe(IDS.settled)
    expect(f.sources.parentNativeId?.kind).toBe('transcript')
    expect(f.sources.subagent).toBeDefined()
    expect(f.model).toBe('gpt-5.5-mini')
  })

  it('a review subagent has no parent id: it is only marked', () => {
    const fed = feed(rolloutPath(IDS.review))
    const f = factsOf(IDS.review)

    expect(f.parentNativeId).toBe(null)
    expect(f.sources.subagent?.kind).toBe('transcript')
    expect(fed.contributions[0]?.extra?.subagent).toBe('review')
  })

  it('an archived rollout reads like any other and is marked archived', () => {
    const f = factsOf(IDS.archived)

    expect(f.title).toBe('Upgrade eslint to v9')
    expect(f.settled).toBe(true)
    expect(f.model).toBe('gpt-5.2-codex')
    expect(f.sources.archived?.ref).toContain('archived_sessions')
  })

  it('rollback drops the rolled-back turn from the message count; turnIndex never goes back', () => {
    const f = factsOf(IDS.rollback)

    expect(f.messages).toBe(6)
    expect(f.turnIndex).toBe(4)
    expect(f.settled).toBe(true)
    expect(f.lastAssistantText).toBe('Added a test that asks for 500 and gets 100.')
  })

  it('compaction is a note in sources; unknown types are ignored; a malformed line is counted', () => {
    const fed = feed(rolloutPath(IDS.rollback))
    const f = factsOf(IDS.rollback)

    expect(fed.malformed).toBe(1)
    expect(f.parseErrors).toBe(1)
    expect(f.sources.compaction?.kind).toBe('transcript')
    expect(fed.contributions[0]?.extra?.compactions).toBe(2)
  })
})

describe('codex rollout: older builds', () => {
  it('an envelope without task events settles when the assistant replies and every call has its output', () => {
    const firstTurn = rolloutFacts(IDS.older, {lines: 12})
    const f = factsOf(IDS.older)

    expect(firstTurn.settled).toBe(true)
    expect(firstTurn.messages).toBe(2)
    expect(f.settled).toBe(false)
    expect(f.turnIndex).toBe(2)
    expect(f.messages).toBe(3)
    expect(f.model).toBe('gpt-5-codex')
    expect(f.title).toBe('what files are in src?')
    expect(iso(f.createdAt)).toBe('2025-10-29T00:59:38.308Z')
  })

  it('the envelope-less layout: bare first line, record_type lines, bare response items', () => {
    const fed = feed(rolloutPath(IDS.legacy))
    const f = factsOf(IDS.legacy)

    expect(fed.state.format).toBe('legacy')
    expect(fed.malformed).toBe(0)
    expect(f.title).toBe('Create a README for this repo — keep it short')
    expect(iso(f.createdAt)).toBe('2025-05-07T17:24:21.123Z')
    expect(f.lastActivityAt).toBe(f.createdAt)
    expect(f.settled).toBe(true)
    expect(f.messages).toBe(2)
    expect(f.turnIndex).toBe(1)
    expect(f.model).toBe(null)
    expect(f.cwd).toBe(null)
    expect(f.lastAssistantText).toBe('I created README.md with an overview and a usage section.')
  })

  it('the envelope-less layout before the reply is working', () => {
    const f = rolloutFacts(IDS.legacy, {lines: 8})

    expect(f.settled).toBe(false)
  })
})

describe('codex rollout: incremental feeding', () => {
  it.each(Object.entries(IDS))('%s: state JSON round-tripped between every line gives the one-pass result', (_name, id) => {
    const path = rolloutPath(id)

    const onePass = feed(path)
    const resumed = feed(path, {roundTrip: true})

    expect(resumed.contributions).toEqual(onePass.contributions)
    expect(resumed.malformed).toBe(onePass.malformed)
  })

  it.each(Object.entries(IDS))('%s: every prefix composes without throwing, and the state stays small', (_name, id) => {
    const path = rolloutPath(id)
    const total = codexLines(path).size

    for (let n = 0; n <= total; n++) {
      const fed = feed(path, {lines: n})
      codex.compose!(id, fed.contributions)
      expect(JSON.stringify(fed.state).length).toBeLessThan(4096)
    }
  })

  it('state size does not grow with the file', () => {
    const path = rolloutPath(IDS.settled)
    const turn = (n: number): string[] => [
      `{"timestamp":"2026-04-27T20:00:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t${n}"}}`,
      `{"timestamp":"2026-04-27T20:00:00.100Z","type":"event_msg","payload":{"type":"user_message","message":"prompt ${n}"}}`,
      `{"timestamp":"2026-04-27T20:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c${n}"}}`,
      `{"timestamp":"2026-04-27T20:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c${n}","output":"ok"}}`,
      `{"timestamp":"2026-04-27T20:00:03.000Z","type":"event_msg","payload":{"type":"agent_message","message":"done ${n}"}}`,
      `{"timestamp":"2026-04-27T20:00:04.000Z","type":"event_msg","payload":{"type":"task_complete","turn_id":"t${n}","last_agent_message":"done ${n}"}}`,
    ]
    const many = Array.from({length: 500}, (_, n) => turn(n)).flat()

    const fed = feed(path, {append: many})

    const f = codex.compose!(IDS.settled, fed.contributions)
    expect(f.turnIndex).toBe(502)
    expect(f.messages).toBe(4 + 1000)
    expect(f.settled).toBe(true)
    expect(JSON.stringify(fed.state).length).toBeLessThan(2048)
  })

  it('a malformed or non-object line returns false; a blank line is not an error', () => {
    const parser = codex.jsonl!
    const state = parser.init('/x', {kind: 'jsonl', nativeId: 'x'}) as RolloutState

    // The engine parses each line once (jsonl-line.ts) and counts the malformed ones; the parser sees objects.
    expect(feedLine(parser, state, '{"type":"event_msg","payload":', 0)).toBe(false)
    expect(feedLine(parser, state, '[1,2]', 10)).toBe(false)
    expect(feedLine(parser, state, '   ', 20)).toBe(true)
    expect(feedLine(parser, state, '{"type":"brand_new_type","payload":{"x":1}}', 30)).toBe(true)
    expect(JSON.stringify(state)).not.toContain('parseErrors')
  })
})

/** Byte offset -> line text, for checking sources. */
function codexLines(path: string): Map<number, string> {
  return new Map(completeLines(readFileSync(path)).map((l) => [l.offset, l.text]))
}
