/**
 * The stalls the agents themselves misreport (docs/contract.md §3.4): a live session whose
 * background work all finished and whose turn never resumed (stalled), an ask on screen or in the
 * transcript while the agent's own state says working (the ask wins, the note says both), and a
 * "blocked" that asks nothing (blocked_unclear). Pure: facts, records and `now` in, one answer out.
 */
import {describe, expect, it} from 'vitest'

import {TIME_LIMITS} from '../../../src/core/model/types.js'
import type {ProcessStatus, Reason, Rule, SessionFacts, SessionRecords, WorkState} from '../../../src/core/model/types.js'
import {classifyWorkState} from '../../../src/core/model/work-state.js'
import {MIN, NOW, SEC, block, children, declared, facts, proc, records} from './helpers.js'

const {STALL_AFTER_MS} = TIME_LIMITS

interface Row {
  readonly name: string
  readonly facts?: Partial<SessionFacts>
  readonly records?: Partial<SessionRecords>
  readonly state: WorkState
  readonly reason: Reason
  readonly rule: Rule
  readonly next?: number | null
}

const live = (status: ProcessStatus | null = null) => proc({status})
const ended = {settled: true} as const

const ROWS: Row[] = [
  // Stalled: the background work all finished, the live process did not resume.
  {
    name: 'background work all finished past the window, turn ended, process idle',
    facts: {backgroundDoneAt: NOW - STALL_AFTER_MS, process: live('idle'), ...ended},
    reason: 'stalled',
    rule: 5,
    state: 'needs_input',
  },
  {
    name: 'the finish notification sits queued for the live process',
    facts: {backgroundDoneAt: NOW - 5 * MIN, process: live('idle'), queued: 1, ...ended},
    reason: 'stalled',
    rule: 5,
    state: 'needs_input',
  },
  {
    name: 'a registry still saying working does not hide the stall',
    facts: {backgroundDoneAt: NOW - 5 * MIN, process: live('working'), ...ended},
    reason: 'stalled',
    rule: 5,
    state: 'needs_input',
  },
  {
    name: 'inside the window: as before, and the answer changes when it ends',
    facts: {backgroundDoneAt: NOW - 10 * SEC, process: live('idle'), ...ended},
    next: NOW - 10 * SEC + STALL_AFTER_MS,
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'inside the window with the notification queued: working, until the window ends',
    facts: {backgroundDoneAt: NOW - 10 * SEC, process: live('idle'), queued: 1, ...ended},
    next: NOW - 10 * SEC + STALL_AFTER_MS,
    reason: 'queued',
    rule: 5,
    state: 'working',
  },
  {
    name: 'background work still open is not a stall',
    facts: {backgroundDoneAt: NOW - 5 * MIN, backgroundWork: 1, process: live('idle'), ...ended},
    reason: 'background_work',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'no live process: nothing to resume, the process rules decide',
    facts: {backgroundDoneAt: NOW - 5 * MIN, process: proc({alive: false}), ...ended},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {
    name: 'an open question beats the stall',
    facts: {backgroundDoneAt: NOW - 5 * MIN, process: live('idle'), question: block('Which db?')},
    reason: 'question',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'no finish recorded: the settled turn decides',
    facts: {process: live('idle'), ...ended},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  // The ask wins over the agent's own "working".
  {
    name: 'transcript question while the registry says working',
    facts: {process: live('working'), question: block('Which db?')},
    reason: 'question',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'screen approval while a hook says thinking',
    facts: {
      approval: {at: NOW - MIN, source: {kind: 'screen', ref: 'tmux %3'}, text: 'Bash'},
      process: proc({source: {kind: 'hook', ref: 'UserPromptSubmit'}, status: 'thinking'}),
    },
    reason: 'approval',
    rule: 4,
    state: 'needs_input',
  },
  // Blocked, asking nothing.
  {
    name: 'the registry says waiting and names no ask',
    facts: {process: live('waiting')},
    reason: 'blocked_unclear',
    rule: 5,
    state: 'needs_input',
  },
  {
    name: 'the registry waiting on a question is the question',
    facts: {process: live('waiting'), question: block('dialog open')},
    reason: 'question',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'a gone process that said waiting is dead, not blocked',
    facts: {process: proc({alive: false, status: 'waiting'})},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {
    name: 'declared blocked with no text',
    facts: ended,
    records: {declaration: declared('blocked', {text: ''})},
    reason: 'blocked_unclear',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'declared blocked with only blanks',
    facts: ended,
    records: {declaration: declared('blocked', {text: '  \n '})},
    reason: 'blocked_unclear',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'declared blocked with its ask stays declared_blocked',
    facts: ended,
    records: {declaration: declared('blocked', {text: 'need the staging password'})},
    reason: 'declared_blocked',
    rule: 7,
    state: 'needs_input',
  },
]

describe('stall reasons', () => {
  it.each(ROWS)('$name -> $state/$reason (rule $rule)', (row) => {
    const result = classifyWorkState({children: children(), facts: facts(row.facts), records: records(row.records)}, NOW)

    expect({next: result.nextCheckAt, reason: result.reason, rule: result.rule, state: result.state}).toEqual({
      next: row.next ?? null,
      reason: row.reason,
      rule: row.rule,
      state: row.state,
    })
  })

  it('a stall not yet due turns into stalled at nextCheckAt with no new input', () => {
    const input = {
      children: children(),
      facts: facts({backgroundDoneAt: NOW - 10 * SEC, process: live('idle'), ...ended}),
      records: records(),
    }
    const before = classifyWorkState(input, NOW)

    const after = classifyWorkState(input, before.nextCheckAt ?? 0)

    expect([before.reason, after.reason]).toEqual(['settled', 'stalled'])
  })

  it('explain names what the agent said and what won', () => {
    const input = {children: children(), facts: facts({process: live('working'), question: block('Which db?')}), records: records()}

    const {chain} = classifyWorkState(input, NOW)

    expect(chain.at(-1)?.note).toBe(
      'open question at 2026-11-29T21:26:00.000Z: "Which db?"; the registry (sessions/4242.json) says working, the transcript showing the ask wins',
    )
  })

  it('an ask with no competing state says only the ask', () => {
    const input = {children: children(), facts: facts({process: live('idle'), question: block('Which db?')}), records: records()}

    expect(classifyWorkState(input, NOW).chain.at(-1)?.note).toBe('open question at 2026-11-29T21:26:00.000Z: "Which db?"')
  })

  it('the stall note says when the work finished and that the turn did not resume', () => {
    const input = {
      children: children(),
      facts: facts({backgroundDoneAt: NOW - 2 * MIN, process: live('idle'), ...ended}),
      records: records(),
    }

    expect(classifyWorkState(input, NOW).chain.at(-1)?.note).toBe(
      'background work all finished at 2026-11-29T21:29:00.000Z; process 4242 has not resumed its turn since',
    )
  })
})
