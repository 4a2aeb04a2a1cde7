import {describe, expect, it} from 'vitest'

import {PRODUCING_STATUSES, REASONS, TIME_LIMITS} from '../../../src/core/model/types.js'
import type {ChildSummary, ProcessStatus, Reason, Rule, SessionFacts, SessionRecords, WorkState} from '../../../src/core/model/types.js'
import {classifyWorkState} from '../../../src/core/model/work-state.js'
import {HOUR, MIN, NOW, block, children, declared, facts, proc, records} from './helpers.js'

const {DORMANT_CLAIM_TTL_MS, TURN_PENDING_TTL_MS} = TIME_LIMITS

interface Row {
  readonly name: string
  readonly facts?: Partial<SessionFacts>
  readonly records?: Partial<SessionRecords>
  readonly children?: Partial<ChildSummary>
  readonly state: WorkState
  readonly reason: Reason
  readonly rule: Rule
  readonly next?: number | null
}

const settled = {settled: true} as const
const live = (status: ProcessStatus | null = null) => proc({status})
const gone = proc({alive: false})

const ROWS: Row[] = [
  // Rule 1: killed
  {name: 'killed', records: {killedAt: NOW - HOUR}, reason: 'killed', rule: 1, state: 'idle'},
  {
    name: 'killed beats queued work and a revived process',
    facts: {process: live('working'), queued: 2},
    records: {killedAt: NOW - HOUR},
    reason: 'killed',
    rule: 1,
    state: 'idle',
  },
  {
    name: 'killed beats an open question',
    facts: {question: block('Which db?')},
    records: {killedAt: NOW - HOUR},
    reason: 'killed',
    rule: 1,
    state: 'idle',
  },
  {name: 'killed beats a snooze', records: {killedAt: NOW - HOUR, snoozedUntil: NOW + HOUR}, reason: 'killed', rule: 1, state: 'idle'},
  {
    name: 'a send before the kill does not clear it',
    facts: {process: live('working')},
    records: {killedAt: NOW - HOUR, lastSendAt: NOW - 2 * HOUR},
    reason: 'killed',
    rule: 1,
    state: 'idle',
  },
  {
    name: 'a send after the kill clears it',
    facts: {process: live('working')},
    records: {killedAt: NOW - HOUR, lastSendAt: NOW - 30 * MIN},
    reason: 'producing',
    rule: 5,
    state: 'working',
  },

  // Rule 2: snooze, both sides of its end
  {name: 'snoozed until 1 ms from now', records: {snoozedUntil: NOW + 1}, next: NOW + 1, reason: 'snoozed', rule: 2, state: 'dormant'},
  {
    name: 'snoozed beats a hard block',
    facts: {approval: block('Bash')},
    records: {snoozedUntil: NOW + HOUR},
    next: NOW + HOUR,
    reason: 'snoozed',
    rule: 2,
    state: 'dormant',
  },
  {name: 'snooze ends exactly now', records: {snoozedUntil: NOW}, reason: 'snooze_expired', rule: 2, state: 'needs_input'},
  {
    name: 'snooze ended, activity only before its end',
    facts: {lastActivityAt: NOW - 2 * HOUR, ...settled},
    records: {snoozedUntil: NOW - HOUR},
    reason: 'snooze_expired',
    rule: 2,
    state: 'needs_input',
  },
  {
    name: 'snooze ended, activity since: rules go on',
    facts: {lastActivityAt: NOW - 30 * MIN, ...settled, backgroundWork: 1},
    records: {snoozedUntil: NOW - HOUR},
    reason: 'background_work',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'snooze ended, a send since counts as activity',
    facts: {lastActivityAt: NOW - 2 * HOUR},
    records: {lastSendAt: NOW - MIN, snoozedUntil: NOW - HOUR},
    next: NOW - MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'snooze ended, a verdict given since applies',
    facts: {lastActivityAt: NOW - 2 * HOUR},
    records: {snoozedUntil: NOW - HOUR, verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    reason: 'user_verdict',
    rule: 3,
    state: 'done',
  },
  {
    name: 'a verdict given during the snooze does not outlast its end',
    facts: {lastActivityAt: NOW - 3 * HOUR},
    records: {snoozedUntil: NOW - HOUR, verdict: {at: NOW - 2 * HOUR, verdict: 'done'}},
    reason: 'snooze_expired',
    rule: 2,
    state: 'needs_input',
  },

  // Rule 3: verdict
  {
    name: 'verdict done beats a hard block',
    facts: {approval: block('Bash', NOW - 20 * MIN), lastActivityAt: NOW - 20 * MIN},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    reason: 'user_verdict',
    rule: 3,
    state: 'done',
  },
  {
    name: 'verdict dormant',
    facts: {lastActivityAt: NOW - 20 * MIN, ...settled},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'dormant'}},
    reason: 'user_verdict',
    rule: 3,
    state: 'dormant',
  },
  {
    name: 'verdict needs_input beats a producing process',
    facts: {lastActivityAt: NOW - 20 * MIN, process: live('working')},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'needs_input'}},
    reason: 'user_verdict',
    rule: 3,
    state: 'needs_input',
  },
  {
    name: 'verdict stands with activity at the same instant',
    facts: {lastActivityAt: NOW - 10 * MIN},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    reason: 'user_verdict',
    rule: 3,
    state: 'done',
  },
  {
    name: 'verdict expires on new activity: the new ask shows',
    facts: {approval: block('Bash', NOW - 5 * MIN), lastActivityAt: NOW - 5 * MIN},
    records: {verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    reason: 'approval',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'verdict expires on a send after it',
    facts: {lastActivityAt: NOW - 20 * MIN},
    records: {lastSendAt: NOW - 2 * MIN, verdict: {at: NOW - 10 * MIN, verdict: 'done'}},
    next: NOW - 2 * MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },

  // Rule 4: hard blocks, error > question > approval
  {name: 'API error banner', facts: {error: block('Please run /login'), ...settled}, reason: 'error', rule: 4, state: 'needs_input'},
  {name: 'open question', facts: {question: block('Which db?')}, reason: 'question', rule: 4, state: 'needs_input'},
  {name: 'permission prompt', facts: {approval: block('Bash')}, reason: 'approval', rule: 4, state: 'needs_input'},
  {
    name: 'error first when all three are open',
    facts: {approval: block('Bash'), error: block('rate limit'), question: block('Which db?')},
    reason: 'error',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'question before approval',
    facts: {approval: block('Bash'), question: block('Which db?')},
    reason: 'question',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: 'a hard block beats a producing process',
    facts: {approval: block('Bash'), process: live('working')},
    reason: 'approval',
    rule: 4,
    state: 'needs_input',
  },
  {
    name: "a child's open ask does not make the parent needs_input",
    facts: {process: live('thinking')},
    children: {asking: true},
    reason: 'producing',
    rule: 5,
    state: 'working',
  },

  // Rule 5: producing, queued, hibernated
  ...PRODUCING_STATUSES.map((status): Row => ({
    name: `live process reports ${status}`,
    facts: {process: live(status)},
    reason: 'producing',
    rule: 5,
    state: 'working',
  })),
  {
    name: 'producing beats a settled transcript',
    facts: {process: live('compacting'), ...settled},
    reason: 'producing',
    rule: 5,
    state: 'working',
  },
  {
    name: 'queued work a live process can deliver',
    facts: {process: live('idle'), queued: 1, ...settled},
    reason: 'queued',
    rule: 5,
    state: 'working',
  },
  {
    name: 'queued work with a live hibernated process',
    facts: {process: live('hibernated'), queued: 1},
    reason: 'queued',
    rule: 5,
    state: 'working',
  },
  {name: 'hibernated, nothing queued', facts: {process: live('hibernated')}, reason: 'hibernated', rule: 5, state: 'dormant'},
  {
    name: 'hibernated without a running process',
    facts: {process: proc({alive: false, status: 'hibernated'})},
    reason: 'hibernated',
    rule: 5,
    state: 'dormant',
  },
  {
    name: 'a stale producing status on a dead process does not latch',
    facts: {process: proc({alive: false, status: 'working'})},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {
    name: 'queued work cannot be delivered by a dead process',
    facts: {process: proc({alive: false, status: 'idle'}), queued: 3},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },

  // Rule 6: dead
  {name: 'process not alive, with output', facts: {process: proc({alive: false})}, reason: 'dead', rule: 6, state: 'needs_input'},
  {name: 'process crashed', facts: {process: proc({alive: false, exited: 'crash'})}, reason: 'dead', rule: 6, state: 'needs_input'},
  {name: 'exited, alive flag still set', facts: {process: proc({exited: 'clean'})}, reason: 'dead', rule: 6, state: 'needs_input'},
  {
    name: 'dead beats a settled declared dormant',
    facts: {process: gone, ...settled},
    records: {declaration: declared('dormant')},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {
    name: 'exited after declaring done this turn',
    facts: {process: gone, ...settled},
    records: {declaration: declared('done')},
    reason: 'declared_done',
    rule: 6,
    state: 'done',
  },
  {
    name: 'exited after declaring done, turn not settled',
    facts: {process: gone},
    records: {declaration: declared('done')},
    reason: 'declared_done',
    rule: 6,
    state: 'done',
  },
  {
    name: 'exited after a done declared in an earlier turn',
    facts: {process: gone, ...settled},
    records: {declaration: declared('done', {turnIndex: 2})},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {
    name: 'crashed after declaring done',
    facts: {process: proc({alive: false, exited: 'crash'})},
    records: {declaration: declared('done')},
    reason: 'dead',
    rule: 6,
    state: 'needs_input',
  },
  {name: 'process gone, no messages', facts: {messages: 0, process: gone}, reason: 'empty', rule: 8, state: 'idle'},
  {
    name: 'a clean exit after a settled turn is never dead',
    facts: {process: proc({alive: false, exited: 'clean'}), ...settled},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'a clean exit after declaring done is done',
    facts: {process: proc({alive: false, exited: 'clean'}), ...settled},
    records: {declaration: declared('done')},
    reason: 'declared_done',
    rule: 6,
    state: 'done',
  },
  {
    name: 'a finished subagent, settled: its result went to its parent',
    facts: {deliveredToParent: true, ...settled},
    reason: 'delivered',
    rule: 7,
    state: 'done',
  },
  {
    name: 'a finished subagent that declared blocked is blocked',
    facts: {deliveredToParent: true, ...settled},
    records: {declaration: declared('blocked')},
    reason: 'declared_blocked',
    rule: 7,
    state: 'needs_input',
  },

  // Rule 7: settled, in trust order
  {
    name: 'declared blocked',
    facts: settled,
    records: {declaration: declared('blocked')},
    reason: 'declared_blocked',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'declared blocked beats an armed recurring trigger',
    facts: settled,
    records: {declaration: declared('blocked'), triggers: {oneShot: 0, recurring: 1}},
    reason: 'declared_blocked',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'declared dormant, no verifiable wake',
    facts: {lastActivityAt: NOW - 2 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - HOUR})},
    next: NOW + HOUR,
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'dormant claim at 2h - 1ms',
    facts: {lastActivityAt: NOW - 3 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - DORMANT_CLAIM_TTL_MS + 1})},
    next: NOW + 1,
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'dormant claim at 2h: unverified',
    facts: {lastActivityAt: NOW - 3 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - DORMANT_CLAIM_TTL_MS})},
    reason: 'unverified_claim',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'dormant claim counts 2h from activity after the declaration',
    facts: {lastActivityAt: NOW - DORMANT_CLAIM_TTL_MS + 1, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 3 * HOUR})},
    next: NOW + 1,
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'dormant claim, 2h after the last activity',
    facts: {lastActivityAt: NOW - DORMANT_CLAIM_TTL_MS, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 3 * HOUR})},
    reason: 'unverified_claim',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'declared dormant with an armed recurring trigger parks indefinitely',
    facts: {lastActivityAt: NOW - 30 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 30 * HOUR}), triggers: {oneShot: 0, recurring: 1}},
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'declared dormant with an armed one-shot trigger',
    facts: {lastActivityAt: NOW - 30 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 30 * HOUR}), triggers: {oneShot: 1, recurring: 0}},
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'declared dormant with open background work',
    facts: {backgroundWork: 2, lastActivityAt: NOW - 30 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 30 * HOUR})},
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'declared dormant with a child producing',
    facts: {lastActivityAt: NOW - 30 * HOUR, ...settled},
    records: {declaration: declared('dormant', {at: NOW - 30 * HOUR})},
    children: {producing: true},
    reason: 'declared_dormant',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'a dormant declared in an earlier turn no longer applies',
    facts: {turnIndex: 4, ...settled},
    records: {declaration: declared('dormant')},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'a blocked declared in an earlier turn no longer applies',
    facts: {turnIndex: 4, ...settled},
    records: {declaration: declared('blocked')},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'a done declared in an earlier turn no longer applies',
    facts: {turnIndex: 4, ...settled},
    records: {declaration: declared('done')},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'armed recurring trigger',
    facts: settled,
    records: {triggers: {oneShot: 0, recurring: 2}},
    reason: 'trigger',
    rule: 7,
    state: 'dormant',
  },
  {name: 'open background work', facts: {backgroundWork: 1, ...settled}, reason: 'background_work', rule: 7, state: 'dormant'},
  {name: 'a child still producing', facts: settled, children: {producing: true}, reason: 'child_producing', rule: 7, state: 'dormant'},
  {
    name: 'a structural park beats declared done',
    facts: {backgroundWork: 1, ...settled},
    records: {declaration: declared('done')},
    reason: 'background_work',
    rule: 7,
    state: 'dormant',
  },
  {name: 'declared done', facts: settled, records: {declaration: declared('done')}, reason: 'declared_done', rule: 7, state: 'done'},
  {
    name: 'declared done with a one-shot trigger armed',
    facts: settled,
    records: {declaration: declared('done'), triggers: {oneShot: 1, recurring: 0}},
    reason: 'trigger',
    rule: 7,
    state: 'dormant',
  },
  {
    name: 'a one-shot trigger alone does not park',
    facts: settled,
    records: {triggers: {oneShot: 1, recurring: 0}},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {name: 'judged delivered', facts: settled, records: {delivered: true}, reason: 'delivered', rule: 7, state: 'done'},
  {
    name: 'declared done beats delivered',
    facts: settled,
    records: {declaration: declared('done'), delivered: true},
    reason: 'declared_done',
    rule: 7,
    state: 'done',
  },
  {name: 'settled, nothing else', facts: settled, reason: 'settled', rule: 7, state: 'needs_input'},
  {
    name: 'settled, declared working',
    facts: settled,
    records: {declaration: declared('working')},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {name: 'settled with a live idle process', facts: {process: live('idle'), ...settled}, reason: 'settled', rule: 7, state: 'needs_input'},

  // Rule 8: not settled, no process status
  {
    name: 'turn pending at 15 min - 1 ms',
    facts: {lastActivityAt: NOW - TURN_PENDING_TTL_MS + 1},
    next: NOW + 1,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'unresponsive at 15 min',
    facts: {lastActivityAt: NOW - TURN_PENDING_TTL_MS},
    reason: 'unresponsive',
    rule: 8,
    state: 'needs_input',
  },
  {
    name: 'a send the agent has not picked up',
    facts: {lastActivityAt: NOW - 3 * HOUR},
    records: {lastSendAt: NOW - MIN},
    next: NOW - MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'a live process without status is live evidence: no TTL',
    facts: {lastActivityAt: NOW - 3 * HOUR, process: live()},
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'a live idle process on an unsettled turn: pending',
    facts: {process: live('idle')},
    next: NOW - 5 * MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'a live idle process on an unsettled turn: unresponsive',
    facts: {lastActivityAt: NOW - HOUR, process: live('idle')},
    reason: 'unresponsive',
    rule: 8,
    state: 'needs_input',
  },
  {
    name: 'no activity time: counted from creation',
    facts: {createdAt: NOW - MIN, lastActivityAt: null},
    next: NOW - MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {name: 'no time at all', facts: {createdAt: null, lastActivityAt: null}, reason: 'unresponsive', rule: 8, state: 'needs_input'},
  {
    name: 'a send to a settled session, not picked up yet',
    facts: {lastActivityAt: NOW - HOUR, ...settled},
    records: {lastSendAt: NOW - MIN},
    next: NOW - MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  {
    name: 'a send to a settled session, never picked up: 15 min',
    facts: {lastActivityAt: NOW - HOUR, ...settled},
    records: {lastSendAt: NOW - TURN_PENDING_TTL_MS},
    reason: 'unresponsive',
    rule: 8,
    state: 'needs_input',
  },
  {
    name: 'a send the transcript already shows',
    facts: {lastActivityAt: NOW - MIN, ...settled},
    records: {lastSendAt: NOW - 2 * MIN},
    reason: 'settled',
    rule: 7,
    state: 'needs_input',
  },
  {
    name: 'a send into a session with no transcript yet',
    facts: {lastActivityAt: null, messages: 0},
    records: {lastSendAt: NOW - MIN},
    next: NOW - MIN + TURN_PENDING_TTL_MS,
    reason: 'turn_pending',
    rule: 8,
    state: 'working',
  },
  // The stall reasons: their own table is test/core/model/stall-reasons.test.ts.
  {
    name: 'background work all finished, the live process never resumed',
    facts: {backgroundDoneAt: NOW - 5 * MIN, process: live('idle'), ...settled},
    reason: 'stalled',
    rule: 5,
    state: 'needs_input',
  },
  {
    name: 'the agent says it waits, naming no ask',
    facts: {process: live('waiting')},
    reason: 'blocked_unclear',
    rule: 5,
    state: 'needs_input',
  },
  {name: 'no messages', facts: {messages: 0}, reason: 'empty', rule: 8, state: 'idle'},
  {name: 'no messages, live process', facts: {messages: 0, process: live()}, reason: 'empty', rule: 8, state: 'idle'},
]

describe('classifyWorkState', () => {
  it.each(ROWS)('$name -> $state/$reason (rule $rule)', (row) => {
    const input = {children: children(row.children), facts: facts(row.facts), records: records(row.records)}

    const result = classifyWorkState(input, NOW)

    expect({nextCheckAt: result.nextCheckAt, reason: result.reason, rule: result.rule, state: result.state}).toEqual({
      nextCheckAt: row.next ?? null,
      reason: row.reason,
      rule: row.rule,
      state: row.state,
    })
    expect(result.chain.map((entry) => entry.rule)).toEqual(Array.from({length: row.rule}, (_, i) => i + 1))
    expect(result.chain.map((entry) => entry.matched)).toEqual(Array.from({length: row.rule}, (_, i) => i + 1 === row.rule))
    for (const entry of result.chain) expect(entry.note).not.toBe('')
    if (result.nextCheckAt !== null) expect(result.nextCheckAt).toBeGreaterThan(NOW)
  })

  it('has a row for every reason', () => {
    const covered = new Set(ROWS.map((row) => row.reason))

    expect(REASONS.filter((reason) => !covered.has(reason))).toEqual([])
  })

  it('is pure: the same input and now give the same answer', () => {
    const input = {children: children(), facts: facts({lastActivityAt: NOW - MIN}), records: records()}

    expect(classifyWorkState(input, NOW)).toEqual(classifyWorkState(input, NOW))
  })

  it('changes at nextCheckAt with no new input', () => {
    const input = {
      children: children(),
      facts: facts({lastActivityAt: NOW - 3 * HOUR, settled: true}),
      records: records({declaration: declared('dormant', {at: NOW - HOUR})}),
    }
    const before = classifyWorkState(input, NOW)

    const after = classifyWorkState(input, before.nextCheckAt ?? 0)

    expect([before.reason, after.reason]).toEqual(['declared_dormant', 'unverified_claim'])
  })

  it('explains each rule it looked at', () => {
    const input = {
      children: children(),
      facts: facts({settled: true, turnIndex: 4}),
      records: records({declaration: declared('done'), verdict: {at: NOW - HOUR, verdict: 'done'}}),
    }

    const {chain} = classifyWorkState(input, NOW)

    expect(chain).toEqual([
      {matched: false, note: 'not killed', rule: 1},
      {matched: false, note: 'not snoozed', rule: 2},
      {matched: false, note: 'verdict done at 2026-11-29T20:31:00.000Z expired: activity at 2026-11-29T21:26:00.000Z', rule: 3},
      {matched: false, note: 'no API error, question or permission prompt', rule: 4},
      {matched: false, note: 'no process facts', rule: 5},
      {matched: false, note: 'no process facts', rule: 6},
      {matched: true, note: 'settled, nothing else holds it; declaration from turn 3 no longer applies', rule: 7},
    ])
  })
})
