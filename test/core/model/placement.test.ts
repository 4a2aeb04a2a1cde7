import {describe, expect, it} from 'vitest'

import {placeSession, releaseCause, shouldReleaseFiling} from '../../../src/core/model/placement.js'
import type {PlacementInput} from '../../../src/core/model/placement.js'
import type {Bucket, ChildSummary, Reason, SessionFacts, SessionRecords, WorkState} from '../../../src/core/model/types.js'
import {HOUR, MIN, NOW, block, children, declared, facts, proc, records} from './helpers.js'

interface Row {
  readonly name: string
  readonly state?: WorkState
  readonly reason?: Reason
  readonly facts?: Partial<SessionFacts>
  readonly records?: Partial<SessionRecords>
  readonly children?: Partial<ChildSummary>
  readonly isChild?: boolean
  readonly bucket: Bucket
  /** What shouldReleaseFiling says; false when omitted. */
  readonly release?: boolean
}

const STASHED_AT = NOW - HOUR
const stashed = {filedAt: STASHED_AT, filing: 'stashed'} as const
const hidden = {filedAt: STASHED_AT, filing: 'hidden'} as const
const before = STASHED_AT - MIN
const after = STASHED_AT + MIN

function input(row: Row): PlacementInput {
  return {
    children: children(row.children),
    classification: {reason: row.reason ?? 'producing', state: row.state ?? 'working'},
    facts: facts(row.facts),
    isChild: row.isChild ?? false,
    records: records(row.records),
  }
}

const ROWS: Row[] = [
  {name: 'a subagent child is folded, even when asking', facts: {question: block('?')}, isChild: true, bucket: 'folded'},
  {name: 'dismissed', records: {filing: 'dismissed'}, bucket: 'dismissed'},
  {
    name: 'dismissed stays dismissed on a new ask',
    facts: {question: block('?', NOW)},
    records: {filedAt: STASHED_AT, filing: 'dismissed'},
    bucket: 'dismissed',
  },

  // Hidden stash: only an ask after it brings it back
  {name: 'hidden', records: hidden, bucket: 'hidden'},
  {name: 'hidden, question opened after', facts: {question: block('?', after)}, records: hidden, bucket: 'questions', release: true},
  {name: 'hidden, question opened before', facts: {question: block('?', before)}, records: hidden, bucket: 'hidden'},
  {name: 'hidden, permission prompt after', facts: {approval: block('Bash', after)}, records: hidden, bucket: 'questions', release: true},
  {
    name: 'hidden, decision card posted after',
    records: {...hidden, openDecision: true, openDecisionAt: after},
    bucket: 'questions',
    release: true,
  },
  {name: 'hidden, decision card posted before', records: {...hidden, openDecision: true, openDecisionAt: before}, bucket: 'hidden'},
  {
    name: 'hidden, decision card of unknown age counts as new',
    records: {...hidden, openDecision: true},
    bucket: 'questions',
    release: true,
  },
  {name: 'hidden, child asks after', children: {asking: true, askingSince: after}, records: hidden, bucket: 'questions', release: true},
  {name: 'hidden, child ask of unknown age', children: {asking: true}, records: hidden, bucket: 'questions', release: true},
  {name: 'hidden stays out through a trigger firing', records: {...hidden, lastSendAt: after}, bucket: 'hidden'},
  {
    name: 'hidden stays out when the process dies',
    state: 'needs_input',
    reason: 'dead',
    facts: {process: proc({alive: false, heartbeatAt: after})},
    records: hidden,
    bucket: 'hidden',
  },
  {
    name: 'hidden stays out on a declared blocked',
    state: 'needs_input',
    reason: 'declared_blocked',
    facts: {settled: true},
    records: {...hidden, declaration: declared('blocked', {at: after})},
    bucket: 'hidden',
  },

  // Stash: comes back when it stalls or a trigger fires
  {name: 'stashed', records: stashed, bucket: 'stashed'},
  {name: 'stashed, working quietly underneath', state: 'dormant', reason: 'background_work', records: stashed, bucket: 'stashed'},
  {
    name: 'stashed, permission prompt after',
    state: 'needs_input',
    reason: 'approval',
    facts: {approval: block('Bash', after)},
    records: stashed,
    bucket: 'questions',
    release: true,
  },
  {
    name: 'stashed, permission prompt before',
    state: 'needs_input',
    reason: 'approval',
    facts: {approval: block('Bash', before)},
    records: stashed,
    bucket: 'stashed',
  },
  {
    name: 'stashed, question after',
    state: 'needs_input',
    reason: 'question',
    facts: {question: block('?', after)},
    records: stashed,
    bucket: 'questions',
    release: true,
  },
  {
    name: 'stashed, decision card after',
    records: {...stashed, openDecision: true, openDecisionAt: after},
    bucket: 'questions',
    release: true,
  },
  {name: 'stashed, child asks after', children: {asking: true, askingSince: after}, records: stashed, bucket: 'questions', release: true},
  {name: 'stashed, child asked before', children: {asking: true, askingSince: before}, records: stashed, bucket: 'stashed'},
  {
    name: 'stashed, process died after',
    state: 'needs_input',
    reason: 'dead',
    facts: {process: proc({alive: false, heartbeatAt: after})},
    records: stashed,
    bucket: 'needs_input',
    release: true,
  },
  {
    name: 'stashed, process was already dead',
    state: 'needs_input',
    reason: 'dead',
    facts: {lastActivityAt: before, process: proc({alive: false, heartbeatAt: before})},
    records: stashed,
    bucket: 'stashed',
  },
  {
    name: 'stashed, dead with no heartbeat: activity after the stash',
    state: 'needs_input',
    reason: 'dead',
    facts: {lastActivityAt: after, process: proc({alive: false, heartbeatAt: null})},
    records: stashed,
    bucket: 'needs_input',
    release: true,
  },
  {
    name: 'stashed, declared blocked after',
    state: 'needs_input',
    reason: 'declared_blocked',
    facts: {settled: true},
    records: {...stashed, declaration: declared('blocked', {at: after})},
    bucket: 'needs_input',
    release: true,
  },
  {
    name: 'stashed, blocked declared before the stash',
    state: 'needs_input',
    reason: 'declared_blocked',
    facts: {settled: true},
    records: {...stashed, declaration: declared('blocked', {at: before})},
    bucket: 'stashed',
  },
  {
    name: 'stashed, blocked declared in an earlier turn',
    state: 'needs_input',
    reason: 'settled',
    facts: {settled: true, turnIndex: 4},
    records: {...stashed, declaration: declared('blocked', {at: after})},
    bucket: 'stashed',
  },
  {name: 'stashed, a trigger fires into it', records: {...stashed, lastSendAt: after}, bucket: 'working', release: true},
  {name: 'stashed, the send came before the stash', records: {...stashed, lastSendAt: before}, bucket: 'stashed'},
  {
    name: 'stashed, an API error is not a stall that brings it back',
    state: 'needs_input',
    reason: 'error',
    facts: {error: block('rate limit', after)},
    records: stashed,
    bucket: 'stashed',
  },
  {
    name: 'stashed, released and pinned',
    facts: {approval: block('Bash', after)},
    records: {...stashed, pinned: true},
    bucket: 'questions',
    release: true,
  },

  // Snoozed and killed
  {
    name: 'snoozed',
    state: 'dormant',
    reason: 'snoozed',
    records: {filedAt: NOW - HOUR, filing: 'snoozed', snoozedUntil: NOW + HOUR},
    bucket: 'snoozed',
  },
  {
    name: 'snoozed with an open question',
    state: 'dormant',
    reason: 'snoozed',
    facts: {question: block('?')},
    records: {filing: 'snoozed', snoozedUntil: NOW + HOUR},
    bucket: 'snoozed',
  },
  {
    name: 'snooze expired',
    state: 'needs_input',
    reason: 'snooze_expired',
    records: {filing: 'snoozed', snoozedUntil: NOW - MIN},
    bucket: 'needs_input',
  },
  {name: 'killed', state: 'idle', reason: 'killed', records: {filing: 'killed', killedAt: NOW - HOUR}, bucket: 'killed'},
  {
    name: 'killed beats pin and an open question',
    state: 'idle',
    reason: 'killed',
    facts: {question: block('?')},
    records: {filing: 'killed', killedAt: NOW - HOUR, pinned: true},
    bucket: 'killed',
  },
  {
    name: 'killed and empty is killed, not new',
    state: 'idle',
    reason: 'killed',
    facts: {messages: 0},
    records: {filing: 'killed', killedAt: NOW - HOUR},
    bucket: 'killed',
  },
  {
    name: 'a send after the kill brings it back',
    records: {filing: 'killed', killedAt: NOW - HOUR, lastSendAt: NOW - MIN},
    bucket: 'working',
  },
  {
    name: 'a stash is lifted by asking, not by being killed',
    state: 'idle',
    reason: 'killed',
    records: {...stashed, killedAt: NOW - MIN},
    bucket: 'stashed',
  },

  // Asking
  {name: 'open question', state: 'needs_input', reason: 'question', facts: {question: block('?')}, bucket: 'questions'},
  {name: 'permission prompt', state: 'needs_input', reason: 'approval', facts: {approval: block('Bash')}, bucket: 'questions'},
  {name: 'open decision card', state: 'needs_input', reason: 'settled', records: {openDecision: true}, bucket: 'questions'},
  {name: "a child's open ask", state: 'working', reason: 'producing', children: {asking: true}, bucket: 'questions'},
  {
    name: 'asking beats pinned',
    state: 'needs_input',
    reason: 'question',
    facts: {question: block('?')},
    records: {pinned: true},
    bucket: 'questions',
  },
  {name: 'an API error is not asking', state: 'needs_input', reason: 'error', facts: {error: block('rate limit')}, bucket: 'needs_input'},
  {
    name: 'a verdict covers the asks the user saw',
    state: 'done',
    reason: 'user_verdict',
    facts: {approval: block('Bash', NOW - 20 * MIN), lastActivityAt: NOW - 20 * MIN},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    bucket: 'done',
  },
  {
    name: 'a verdict does not cover a newer child ask',
    state: 'done',
    reason: 'user_verdict',
    children: {asking: true, askingSince: NOW - 5 * MIN},
    facts: {lastActivityAt: NOW - 20 * MIN},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    bucket: 'questions',
  },

  // Pinned, new, then state
  {name: 'pinned keeps its state underneath', state: 'done', reason: 'declared_done', records: {pinned: true}, bucket: 'pinned'},
  {name: 'new: no messages yet', state: 'idle', reason: 'empty', facts: {messages: 0}, bucket: 'new'},
  {name: 'pinned beats new', state: 'idle', reason: 'empty', facts: {messages: 0}, records: {pinned: true}, bucket: 'pinned'},
  {name: 'needs_input', state: 'needs_input', reason: 'settled', bucket: 'needs_input'},
  {name: 'done', state: 'done', reason: 'delivered', bucket: 'done'},
  {name: 'working', state: 'working', reason: 'producing', bucket: 'working'},
  {name: 'dormant', state: 'dormant', reason: 'trigger', bucket: 'dormant'},
  {name: 'idle', state: 'idle', reason: 'empty', facts: {messages: 3}, bucket: 'idle'},
]

describe('placeSession', () => {
  it.each(ROWS)('$name -> $bucket', (row) => {
    const placement = input(row)

    expect(placeSession(placement)).toBe(row.bucket)
    expect(shouldReleaseFiling(placement)).toBe(row.release ?? false)
  })
})

describe('releaseCause', () => {
  it.each`
    name                            | facts                               | records                               | cause
    ${'nothing'}                    | ${{}}                               | ${stashed}                            | ${null}
    ${'not filed'}                  | ${{question: block('?', after)}}    | ${{}}                                 | ${null}
    ${'question'}                   | ${{question: block('?', after)}}    | ${stashed}                            | ${'question'}
    ${'approval'}                   | ${{approval: block('Bash', after)}} | ${hidden}                             | ${'approval'}
    ${'decision'}                   | ${{}}                               | ${{...stashed, openDecision: true}}   | ${'decision'}
    ${'trigger fired'}              | ${{}}                               | ${{...stashed, lastSendAt: after}}    | ${'trigger_fired'}
    ${'no filing time: asks count'} | ${{question: block('?', before)}}   | ${{filedAt: null, filing: 'stashed'}} | ${'question'}
  `('$name -> $cause', ({cause, facts: f, records: r}) => {
    expect(releaseCause(input({bucket: 'stashed', facts: f, name: '', records: r}))).toBe(cause)
  })
})
