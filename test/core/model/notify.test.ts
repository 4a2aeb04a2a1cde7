import {describe, expect, it} from 'vitest'

import {registry} from '../../../src/adapters/index.js'
import {
  candidateOf,
  type Candidate,
  DEFAULT_NOTIFY_OPTIONS,
  groupSentence,
  nextQuietAt,
  notifyKindOf,
  type NotifySubject,
  type NotifyTransition,
  planBurst,
  quietNotice,
  sentence,
  statusLine,
} from '../../../src/core/model/notify.js'

const NOW = Date.parse('2026-11-29T21:31:00Z')
/** The model names agents as the caller says: the registry's names, as the notifier passes them. */
const NAMES = registry().shortNames
const OPTIONS = {...DEFAULT_NOTIFY_OPTIONS, agentNames: NAMES}
const subject = (o: Partial<NotifySubject> = {}): NotifySubject => ({
  agent: 'claude_code',
  ask: {kind: 'approval', text: 'Bash rm -rf build\nmore'},
  bucket: 'questions',
  id: 's1',
  isChild: false,
  mine: true,
  quietAt: null,
  reason: 'approval',
  state: 'needs_input',
  title: 'Deploy the site',
  turn: 2,
  workingSince: null,
  ...o,
})
const into = (o: Partial<NotifyTransition> = {}): NotifyTransition => ({
  bucket: 'questions',
  event: 'transition',
  reason: 'approval',
  seq: 10,
  to: 'needs_input',
  ts: NOW,
  ...o,
})

describe('notifyKindOf: which transitions page me', () => {
  it.each([
    ['a permission prompt', into(), subject(), 'approval'],
    ['an open question', into({reason: 'question'}), subject({ask: {kind: 'question', text: 'Which DB?'}, reason: 'question'}), 'question'],
    [
      'an error banner',
      into({bucket: 'needs_input', reason: 'error'}),
      subject({ask: {kind: 'error', text: '529 overloaded'}, bucket: 'needs_input', reason: 'error'}),
      'error',
    ],
    [
      'a decision card',
      into({bucket: 'questions', reason: 'settled'}),
      subject({ask: {kind: 'decision', text: 'Ship now?'}, reason: 'settled'}),
      'decision',
    ],
    [
      'a bare needs input (settled)',
      into({bucket: 'needs_input', reason: 'settled'}),
      subject({ask: null, bucket: 'needs_input', reason: 'settled'}),
      'needs_input',
    ],
    [
      'a dead process',
      into({bucket: 'needs_input', reason: 'dead'}),
      subject({ask: null, bucket: 'needs_input', reason: 'dead'}),
      'needs_input',
    ],
    [
      'a declared done (soft)',
      into({bucket: 'done', reason: 'declared_done', to: 'done'}),
      subject({ask: null, bucket: 'done', reason: 'declared_done', state: 'done'}),
      'done',
    ],
    [
      'a done nobody declared',
      into({bucket: 'done', reason: 'delivered', to: 'done'}),
      subject({ask: null, bucket: 'done', reason: 'delivered', state: 'done'}),
      null,
    ],
    [
      'working',
      into({bucket: 'working', reason: 'producing', to: 'working'}),
      subject({ask: null, bucket: 'working', reason: 'producing', state: 'working'}),
      null,
    ],
    ['a subagent', into(), subject({bucket: 'folded', isChild: true}), null],
    [
      'a hidden stash (no ask yet)',
      into({bucket: 'hidden', reason: 'settled'}),
      subject({ask: null, bucket: 'hidden', reason: 'settled'}),
      null,
    ],
    ['a stashed row', into({bucket: 'stashed', reason: 'settled'}), subject({ask: null, bucket: 'stashed', reason: 'settled'}), null],
    [
      'a snoozed session',
      into({bucket: 'snoozed', reason: 'snoozed', to: 'dormant'}),
      subject({ask: null, bucket: 'snoozed', reason: 'snoozed', state: 'dormant'}),
      null,
    ],
    ['a session owned by others', into(), subject({mine: false}), null],
    ['a gone event', into({event: 'gone'}), subject(), null],
    [
      'a transition the session has left since (a replay)',
      into(),
      subject({ask: null, bucket: 'working', reason: 'producing', state: 'working'}),
      null,
    ],
  ])('%s', (_what, t, s, kind) => {
    expect(notifyKindOf(t, s)).toBe(kind)
  })

  it('a declared done pages nobody with done: off', () => {
    expect(
      notifyKindOf(
        into({bucket: 'done', reason: 'declared_done', to: 'done'}),
        subject({ask: null, bucket: 'done', reason: 'declared_done', state: 'done'}),
        {done: 'off', quiet: true},
      ),
    ).toBeNull()
  })
})

describe('dedupe per session, reason and turn', () => {
  it('the same ask in the same turn pages once; a new turn pages again', () => {
    const first = candidateOf(into(), subject(), new Set())!
    expect(first.key).toBe('s1|approval|2')
    expect(candidateOf(into({seq: 11}), subject(), new Set([first.key]))).toBeNull()
    expect(candidateOf(into({seq: 12}), subject({turn: 3}), new Set([first.key]))).not.toBeNull()
    expect(
      candidateOf(
        into({reason: 'question', seq: 13}),
        subject({ask: {kind: 'question', text: 'Q?'}, reason: 'question'}),
        new Set([first.key]),
      ),
    ).not.toBeNull()
  })
})

describe('sentences (seed 002)', () => {
  it.each([
    ['claude_code', 'approval', 'Claude is waiting for approval'],
    ['codex', 'question', 'Codex asked a question'],
    ['gemini', 'error', 'Gemini is blocked by an error'],
    ['opencode', 'decision', 'OpenCode needs a decision'],
    ['pi', 'needs_input', 'pi is waiting for input'],
    ['copilot', 'done', 'Copilot is done'],
  ] as const)('%s %s', (agent, kind, text) => {
    expect(sentence(agent, kind, NAMES)).toBe(text)
  })

  it('without names the model says the id (it knows no agents of its own)', () => {
    expect(sentence('claude_code', 'approval')).toBe('claude_code is waiting for approval')
  })

  it('a group names a reason only when every member shares it', () => {
    expect(groupSentence(['approval', 'approval', 'approval'])).toBe('3 agents are waiting for approval')
    expect(groupSentence(['question', 'question'])).toBe('2 agents asked a question')
    expect(groupSentence(['approval', 'question', 'error'])).toBe('3 agents need you')
  })
})

const cand = (id: string, kind: Candidate['kind'], seq: number, agent = 'claude_code'): Candidate => ({
  agent,
  askLine: kind === 'done' ? null : `ask ${id}`,
  key: `${id}|${kind}|1`,
  kind,
  seq,
  sessionId: id,
  title: `Title ${id}`,
})

describe('planBurst', () => {
  it('one demand: the sentence, then title and ask line', () => {
    const [n, ...rest] = planBurst([candidateOf(into(), subject(), new Set())!], OPTIONS)
    expect(rest).toEqual([])
    expect(n).toMatchObject({
      body: 'Deploy the site\nApprove Bash rm -rf build?',
      kind: 'approval',
      summary: 'Claude is waiting for approval',
      urgency: 'normal',
    })
  })

  it('a declared blocked carries what the agent needs in the body, as an ask does', () => {
    const blocked = subject({
      ask: null,
      blocked: 'Need the staging DB password\n(ask ops)',
      bucket: 'needs_input',
      reason: 'declared_blocked',
    })
    const [n] = planBurst([candidateOf(into({bucket: 'needs_input', reason: 'declared_blocked'}), blocked, new Set())!], OPTIONS)
    expect(n).toMatchObject({body: 'Deploy the site\nNeed the staging DB password', kind: 'needs_input'})
    // Once the session moved on (a later settle), an old declaration is not its need.
    const settled = subject({ask: null, blocked: 'Need the staging DB password', bucket: 'needs_input', reason: 'settled'})
    expect(planBurst([candidateOf(into({bucket: 'needs_input', reason: 'settled'}), settled, new Set())!], OPTIONS)[0]!.body).toBe(
      'Deploy the site',
    )
  })

  it('a burst of five is one grouped notification; a mixed group says "need you"', () => {
    const five = ['a', 'b', 'c', 'd', 'e'].map((id, i) => cand(id, 'approval', i))
    const out = planBurst(five)
    expect(out).toHaveLength(1)
    expect(out[0]).toMatchObject({kind: 'approval', summary: '5 agents are waiting for approval'})
    expect(out[0]!.sessions).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(out[0]!.body.split('\n')).toHaveLength(5)
    expect(planBurst([cand('a', 'approval', 1), cand('b', 'error', 2, 'gemini')])[0]).toMatchObject({
      kind: 'mixed',
      summary: '2 agents need you',
    })
  })

  it('more than five members: five lines and "+N more"', () => {
    const body = planBurst(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => cand(id, 'question', i)))[0]!.body.split('\n')
    expect(body).toHaveLength(6)
    expect(body[5]).toBe('+2 more')
  })

  it('a session appears once, with its latest kind; dones go in a soft notification of their own', () => {
    const out = planBurst([cand('a', 'question', 1), cand('a', 'approval', 2), cand('b', 'done', 3)], OPTIONS)
    expect(out).toHaveLength(2)
    expect(out[0]).toMatchObject({kind: 'approval', sessions: ['a'], urgency: 'normal'})
    expect(out[1]).toMatchObject({kind: 'done', summary: 'Claude is done', urgency: 'low'})
    expect(planBurst([cand('b', 'done', 3)], {done: 'normal', quiet: true})[0]!.urgency).toBe('normal')
  })
})

describe('the quiet band', () => {
  const working = (id: string, quietAt: number | null, o: Partial<NotifySubject> = {}): NotifySubject =>
    subject({ask: null, bucket: 'working', id, quietAt, reason: 'producing', state: 'working', title: `T ${id}`, workingSince: 1, ...o})

  it('"2 agents have gone quiet" once nothing louder asks, once per stint', () => {
    const subjects = [working('a', NOW - 1), working('b', NOW - 5), working('c', NOW + 60_000)]
    const n = quietNotice(subjects, new Set(), NOW)!
    expect(n).toMatchObject({kind: 'quiet', summary: '2 agents have gone quiet', urgency: 'low'})
    expect(quietNotice(subjects, new Set(n.keys), NOW)).toBeNull()
    expect(nextQuietAt(subjects, NOW)).toBe(NOW + 60_000)
  })

  it('nothing while a demand is pending, nor for sessions that may not page me', () => {
    expect(quietNotice([working('a', NOW - 1), subject({id: 'x'})], new Set(), NOW)).toBeNull()
    expect(quietNotice([working('a', NOW - 1, {mine: false}), working('b', NOW - 1, {bucket: 'stashed'})], new Set(), NOW)).toBeNull()
    expect(quietNotice([working('a', NOW - 1)], new Set(), NOW, {done: 'soft', quiet: false})).toBeNull()
    expect(quietNotice([working('a', NOW - 1)], new Set(), NOW, OPTIONS)).toMatchObject({body: 'T a', summary: 'Claude has gone quiet'})
  })
})

describe('statusLine', () => {
  const c = (need: number, quiet: number) => ({done: 4, needs_input: need, questions: 1, quiet, working: 2})
  it.each([
    [c(3, 1), undefined, '3 need you · 1 quiet'],
    [c(1, 0), undefined, '1 needs you'],
    [c(0, 2), undefined, '2 quiet'],
    [c(0, 0), undefined, 'nothing needs you'],
    [c(3, 1), '#[fg=red]{need}#[default] {quiet} {working} {done} {nope}', '#[fg=red]3#[default] 1 2 4 {nope}'],
  ])('%o %s', (counts, format, line) => {
    expect(statusLine(counts, format)).toBe(line)
  })
})
