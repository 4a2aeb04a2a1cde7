import {describe, expect, it} from 'vitest'

import {eventFor, planReconcile, type ReconcilePlan, type StoredPlacement, summarizeChildren} from '../../../src/core/model/reconcile.js'
import type {ChildSummary, SessionFacts, SessionRecords} from '../../../src/core/model/types.js'
import {HOUR, MIN, NOW, block, children, facts, proc, records} from './helpers.js'

const NEVER: StoredPlacement = {bucket: null, nextCheckAt: null, reason: null, rule: null, state: null, workingSince: null}
/** A row stored as working (rule 8, process alive) since `since`. */
const storedWorking = (over: Partial<StoredPlacement> = {}): StoredPlacement => ({
  bucket: 'working',
  nextCheckAt: null,
  reason: 'turn_pending',
  rule: 8,
  state: 'working',
  workingSince: NOW - 20 * MIN,
  ...over,
})
const storedSettled: StoredPlacement = {
  bucket: 'needs_input',
  nextCheckAt: null,
  reason: 'settled',
  rule: 7,
  state: 'needs_input',
  workingSince: null,
}

/** Alive, active 10 s ago, the turn began 2 minutes ago: working (turn_pending, rule 8, no timer). */
const WORKING: Partial<SessionFacts> = {lastActivityAt: NOW - 10_000, process: proc(), turnStartedAt: NOW - 2 * MIN}
const STASHED_AT = NOW - HOUR

interface Row {
  readonly name: string
  readonly facts?: Partial<SessionFacts>
  readonly records?: Partial<SessionRecords>
  readonly children?: Partial<ChildSummary>
  readonly isChild?: boolean
  readonly stored: StoredPlacement
  readonly plan: Partial<Omit<ReconcilePlan, 'classification'>> & {readonly state?: string; readonly reason?: string}
}

const ROWS: Row[] = [
  {
    name: 'first sight of a working session: new, state since its last activity, working since its turn began',
    facts: WORKING,
    plan: {bucket: 'working', event: 'new', stateSince: NOW - 10_000, state: 'working', workingSince: NOW - 2 * MIN, write: 'row'},
    stored: NEVER,
  },
  {
    name: 'first sight, working, no turn start: working since the last activity',
    facts: {...WORKING, turnStartedAt: null},
    plan: {event: 'new', workingSince: NOW - 10_000, write: 'row'},
    stored: NEVER,
  },
  {
    name: 'first sight of a settled session: not working, no working-since',
    facts: {settled: true},
    plan: {bucket: 'needs_input', event: 'new', reason: 'settled', stateSince: NOW - 5 * MIN, state: 'needs_input', workingSince: null},
    stored: NEVER,
  },
  {
    name: 'first sight of a killed session is new, not gone',
    records: {filedAt: STASHED_AT, filing: 'killed', killedAt: STASHED_AT},
    plan: {bucket: 'killed', event: 'new', write: 'row'},
    stored: NEVER,
  },
  {
    name: 'nothing moved: nothing to write',
    facts: WORKING,
    plan: {event: null, stateSince: null, write: 'none'},
    stored: storedWorking(),
  },
  {
    name: 'only the timer moved: rule and next check rewritten, no event',
    facts: WORKING,
    plan: {event: null, write: 'check'},
    stored: storedWorking({nextCheckAt: NOW + MIN}),
  },
  {
    name: 'only the rule moved: a check write',
    facts: WORKING,
    plan: {write: 'check'},
    stored: storedWorking({rule: 7}),
  },
  {
    name: 'needs input -> working: state and work both since now',
    facts: WORKING,
    plan: {event: 'transition', stateSince: NOW, state: 'working', workingSince: NOW, write: 'row'},
    stored: storedSettled,
  },
  {
    name: 'still working, the bucket moved (pinned): state since kept, working since kept',
    facts: WORKING,
    records: {pinned: true},
    plan: {bucket: 'pinned', event: 'transition', stateSince: null, workingSince: NOW - 20 * MIN, write: 'row'},
    stored: storedWorking(),
  },
  {
    name: 'still working, a stored row without working-since: working since now',
    facts: WORKING,
    records: {pinned: true},
    plan: {workingSince: NOW, write: 'row'},
    stored: storedWorking({workingSince: null}),
  },
  {
    name: 'working -> settled: working since cleared',
    facts: {settled: true},
    plan: {event: 'transition', stateSince: NOW, workingSince: null, write: 'row'},
    stored: storedWorking(),
  },
  {
    name: 'entering killed is gone',
    facts: WORKING,
    records: {filedAt: NOW - MIN, filing: 'killed', killedAt: NOW - MIN},
    plan: {bucket: 'killed', event: 'gone', reason: 'killed', state: 'idle', write: 'row'},
    stored: storedWorking(),
  },
  {
    name: 'entering dismissed is gone',
    facts: WORKING,
    records: {filedAt: NOW - MIN, filing: 'dismissed'},
    plan: {bucket: 'dismissed', event: 'gone', write: 'row'},
    stored: storedWorking(),
  },
  {
    name: 'a dismissed row that changes state stays in dismissed: a transition, not gone again',
    facts: {settled: true},
    records: {filedAt: STASHED_AT, filing: 'dismissed'},
    plan: {bucket: 'dismissed', event: 'transition', write: 'row'},
    stored: storedWorking({bucket: 'dismissed'}),
  },
  {
    name: 'a stash with a question opened after it: released, in Questions',
    facts: {question: block('Which db?', NOW - MIN)},
    records: {filedAt: STASHED_AT, filing: 'stashed'},
    plan: {bucket: 'questions', releaseFiling: true, write: 'row'},
    stored: storedWorking({bucket: 'stashed'}),
  },
  {
    name: 'a hidden stash with a child asking after it: released',
    children: {asking: true, askingSince: NOW - MIN},
    records: {filedAt: STASHED_AT, filing: 'hidden'},
    plan: {bucket: 'questions', releaseFiling: true},
    stored: storedWorking({bucket: 'hidden'}),
  },
  {
    name: 'a stash of a session still working: stays stashed',
    facts: WORKING,
    records: {filedAt: STASHED_AT, filing: 'stashed'},
    plan: {bucket: 'stashed', releaseFiling: false, write: 'none'},
    stored: storedWorking({bucket: 'stashed'}),
  },
  {
    name: 'a stash made while the question was already open: stays stashed',
    facts: {question: block('Which db?', STASHED_AT - MIN)},
    records: {filedAt: STASHED_AT, filing: 'stashed'},
    plan: {bucket: 'stashed', releaseFiling: false},
    stored: storedWorking({bucket: 'stashed'}),
  },
  {
    name: 'a dismissal is never released by an ask',
    facts: {question: block('Which db?', NOW - MIN)},
    records: {filedAt: STASHED_AT, filing: 'dismissed'},
    plan: {bucket: 'dismissed', releaseFiling: false},
    stored: storedWorking({bucket: 'dismissed'}),
  },
  {
    name: 'a subagent child is folded; its first sight is new',
    facts: WORKING,
    isChild: true,
    plan: {bucket: 'folded', event: 'new'},
    stored: NEVER,
  },
]

describe('planReconcile', () => {
  it.each(ROWS)('$name', (row) => {
    const plan = planReconcile(
      {
        children: children(row.children),
        facts: facts(row.facts),
        isChild: row.isChild ?? false,
        records: records(row.records),
        stored: row.stored,
      },
      NOW,
    )
    const {reason, state, ...rest} = row.plan
    expect(plan).toMatchObject(rest)
    if (state !== undefined) expect(plan.classification.state).toBe(state)
    if (reason !== undefined) expect(plan.classification.reason).toBe(reason)
  })

  it('classifies again after a release: the plan carries the classification of the released records', () => {
    const input = {
      children: children(),
      facts: facts({question: block('Which db?', NOW - MIN)}),
      isChild: false,
      records: records({filedAt: STASHED_AT, filing: 'stashed'}),
      stored: NEVER,
    }
    const plan = planReconcile(input, NOW)
    const released = planReconcile({...input, records: records()}, NOW)
    expect(plan.releaseFiling).toBe(true)
    expect(plan.classification).toEqual(released.classification)
  })
})

describe('eventFor', () => {
  it.each`
    firstSight | from         | to             | event
    ${true}    | ${null}      | ${'killed'}    | ${'new'}
    ${false}   | ${'working'} | ${'killed'}    | ${'gone'}
    ${false}   | ${'working'} | ${'dismissed'} | ${'gone'}
    ${false}   | ${'killed'}  | ${'killed'}    | ${'transition'}
    ${false}   | ${'killed'}  | ${'dismissed'} | ${'gone'}
    ${false}   | ${'stashed'} | ${'questions'} | ${'transition'}
  `('$from -> $to (first sight: $firstSight) is $event', ({event, firstSight, from, to}) => {
    expect(eventFor(firstSight, from, to)).toBe(event)
  })
})

describe('summarizeChildren', () => {
  it('no children: not producing, not asking', () => {
    expect(summarizeChildren([])).toEqual({asking: false, askingSince: null, producing: false})
  })

  it('a working child is producing; the oldest open ask of any child is when asking began', () => {
    const kids = [
      {facts: {}, state: 'working'},
      {facts: {approval: block('Bash', NOW - MIN), question: null}, state: 'needs_input'},
      {facts: {question: block('?', NOW - 3 * MIN)}, state: 'needs_input'},
    ]
    expect(summarizeChildren(kids)).toEqual({asking: true, askingSince: NOW - 3 * MIN, producing: true})
  })
})
