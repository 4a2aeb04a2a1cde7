/**
 * Rollouts written by the real Codex CLI 0.169.0 (`codex exec` against the conformance mock,
 * test/fixtures/codex/real-0.169.0/, copied as written): the `ordinal` envelope, item_completed
 * messages, world_state and token_usage_record lines, and a turn that failed on 429s.
 */
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {codex, initRollout, isSettled, rolloutParser} from '../../../src/adapters/codex/index.js'
import {feedLine} from '../../../src/core/ingest/jsonl-line.js'
import type {FileMatch} from '../../../src/core/ingest/adapter.js'
import {HOME} from './helpers.js'

const DIR = join(HOME, 'real-0.169.0')

function load(name: string): {path: string; id: string; lines: {text: string; offset: number}[]} {
  const file = readdirSync(join(DIR, name))[0]!
  const path = join(DIR, name, file)
  const id = /-([0-9a-f-]{36})\.jsonl$/.exec(file)![1]!
  const lines: {text: string; offset: number}[] = []
  let offset = 0
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (text.length > 0) lines.push({offset, text})
    offset += Buffer.byteLength(text) + 1
  }

  return {id, lines, path}
}

function compose(name: string, upTo?: (text: string) => boolean) {
  const {id, lines, path} = load(name)
  const state = initRollout(id)
  for (const l of lines) {
    if (upTo?.(l.text)) break
    expect(feedLine(rolloutParser, state, l.text, l.offset)).toBe(true)
  }

  const match: FileMatch & {kind: 'jsonl'} = {kind: 'jsonl', nativeId: id, role: 'rollout'}
  return {facts: codex.compose!(id, rolloutParser.contributions(state, path, match)), state}
}

describe('codex 0.169.0 real rollouts', () => {
  it('a finished exec turn: settled, one prompt and one reply, no error', () => {
    const {facts, state} = compose('exec-plain')
    expect(isSettled(state)).toBe(true)
    expect(facts.messages).toBe(2)
    expect(facts.turnIndex).toBe(1)
    expect(facts.error).toBe(null)
    expect(facts.lastAssistantText).toBe('Headless answer.')
    expect(facts.title).toBe('answer please')
  })

  it('a turn that failed on 429s: task_complete.error is the error block', () => {
    const {facts} = compose('exec-429')
    expect(facts.settled).toBe(true)
    expect(facts.messages).toBe(1)
    expect(facts.error?.text).toBe('exceeded retry limit, last status: 429 Too Many Requests')
    expect(facts.error?.source.kind).toBe('transcript')
  })

  it('the same turn before task_complete, with no process holding the file: a crash (dead), never working', () => {
    const {facts} = compose('exec-429', (t) => t.includes('"type":"task_complete"'))
    expect(facts.settled).toBe(false)
    expect(facts.error).toBe(null)
    expect(facts.process).toMatchObject({alive: false, exited: 'crash', pid: 0})
  })

  it('a TUI background terminal: open after the turn until its CommandExecution item completes', () => {
    const exits = (t: string): boolean => t.includes('"type":"CommandExecution"')
    const {id, lines, path} = load('tui-background')
    const match: FileMatch & {kind: 'jsonl'} = {kind: 'jsonl', nativeId: id, role: 'rollout'}
    const state = initRollout(id)
    for (const l of lines) {
      if (exits(l.text)) break
      feedLine(rolloutParser, state, l.text, l.offset)
    }

    const [running] = rolloutParser.contributions(state, path, match)
    expect(running!.facts.settled).toBe(true)
    expect(running!.facts.backgroundWork).toBe(1)
    const held = {
      ...running!,
      processAlive: true,
      processClaim: {heartbeatAt: null, pid: 4242, source: {kind: 'process', ref: '/proc/4242/fd'}, startedAt: 1, status: null},
    }
    expect(codex.compose!(id, [held]).backgroundWork).toBe(1)
    // With no live holder the terminals went with it.
    expect(codex.compose!(id, [running!]).backgroundWork).toBe(0)

    for (const l of lines.filter((x) => x.offset >= lines.find((y) => exits(y.text))!.offset))
      feedLine(rolloutParser, state, l.text, l.offset)
    expect(rolloutParser.contributions(state, path, match)[0]!.facts.backgroundWork).toBe(0)
  })
})

describe('codex 0.169.0: an escalated command waiting for the user (tui-approval, written with the dialog open)', () => {
  const {id, lines, path} = load('tui-approval')
  const match: FileMatch & {kind: 'jsonl'} = {kind: 'jsonl', nativeId: id, role: 'rollout'}
  const live = {
    facts: {},
    nativeId: id,
    processAlive: true,
    processClaim: {heartbeatAt: null, pid: process.pid, source: {kind: 'process', ref: '/proc/fd'}, startedAt: 1, status: null},
  }
  const facts = (edit: (t: string) => string = (t) => t, holder = true) => {
    const state = initRollout(id)
    for (const l of lines) feedLine(rolloutParser, state, edit(l.text), l.offset)
    return codex.compose!(id, [...rolloutParser.contributions(state, path, match), ...(holder ? [live] : [])])
  }

  it('on-request, the function_call with require_escalated and no output, a live holder: needs_input/approval for the command', () => {
    expect(lines.some((l) => l.text.includes('"approval_policy":"on-request"'))).toBe(true)
    expect(lines.some((l) => l.text.includes('function_call_output'))).toBe(false)
    const f = facts()
    expect(f.settled).toBe(false)
    expect(f.approval).toMatchObject({text: 'touch ../outside-unseen'})
    expect(f.approval?.source.kind).toBe('transcript')
  })

  it('no live holder: no approval (a crash reads dead); approval_policy never: no approval', () => {
    expect(facts((t) => t, false).approval).toBeNull()
    expect(facts((t) => t.replaceAll('"approval_policy":"on-request"', '"approval_policy":"never"')).approval).toBeNull()
  })

  it('its output (approved, denied) or the turn end closes it', () => {
    const out = JSON.stringify({
      payload: {
        call_id: /"call_id":"([^"]+)"/.exec(lines.find((l) => l.text.includes('"type":"function_call"'))!.text)![1],
        output: 'ok',
        type: 'function_call_output',
      },
      timestamp: '2026-12-01T21:19:30.000Z',
      type: 'response_item',
    })
    const state = initRollout(id)
    for (const l of lines) feedLine(rolloutParser, state, l.text, l.offset)
    feedLine(rolloutParser, state, out, 1_000_000)
    expect(codex.compose!(id, [...rolloutParser.contributions(state, path, match), live]).approval).toBeNull()
  })
})
