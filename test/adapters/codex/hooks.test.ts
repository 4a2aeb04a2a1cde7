import {describe, expect, it} from 'vitest'

import {codex} from '../../../src/adapters/codex/index.js'
import type {CheckedContribution, HookEvent} from '../../../src/core/ingest/adapter.js'
import {IDS, feed, ms, rolloutPath} from './helpers.js'

const hooks = codex.hooks!

function event(at: string, payload: Record<string, unknown>): HookEvent {
  return {agent: 'codex', at: ms(at), payload}
}

/** The legacy `notify` program's argument (agent-formats §10.3). */
function notify(at: string, threadId: string, turnId: string, last: string): HookEvent {
  return event(at, {
    client: 'codex-tui',
    cwd: '/home/dev/projects/api',
    'input-messages': ['Migrate the users table to UUID keys'],
    'last-assistant-message': last,
    'thread-id': threadId,
    'turn-id': turnId,
    type: 'agent-turn-complete',
  })
}

function lifecycle(at: string, name: string, sessionId: string, extra: Record<string, unknown> = {}): HookEvent {
  return event(at, {
    cwd: '/home/dev/projects/api',
    hook_event_name: name,
    model: 'gpt-5.5',
    session_id: sessionId,
    transcript_path: null,
    turn_id: 'turn-1',
    ...extra,
  })
}

function reduceAll(events: readonly HookEvent[]): unknown {
  let state = hooks.init()
  for (const e of events) state = hooks.reduce(state, e)
  return state
}

function hookContribution(nativeId: string, events: readonly HookEvent[]): CheckedContribution {
  const c = hooks.contribution(reduceAll(events), nativeId)
  if (!c) throw new Error('no hook contribution')
  return c
}

function compose(nativeId: string, opts: {append?: string[]; lines?: number}, extra: readonly CheckedContribution[]) {
  return codex.compose!(nativeId, [...feed(rolloutPath(nativeId), opts).contributions, ...extra])
}

describe('codex hooks', () => {
  it('finds the session in notify (thread-id) and lifecycle (session_id) payloads', () => {
    expect(hooks.sessionOf(notify('2026-04-27T20:16:00Z', 'T1', 'turn-1', 'x'))).toBe('T1')
    expect(hooks.sessionOf(lifecycle('2026-04-27T20:16:00Z', 'Stop', 'T2'))).toBe('T2')
    expect(hooks.sessionOf(event('2026-04-27T20:16:00Z', {hook_event_name: 'Stop'}))).toBe(null)
  })

  it('notify agent-turn-complete settles the turn, at priority 20 with a hook source', () => {
    const c = hookContribution(IDS.working, [
      notify('2026-04-27T20:16:30Z', IDS.working, 'turn-1', 'Migration written; run it with pnpm db:migrate.'),
    ])

    const f = compose(IDS.working, {}, [c])

    expect(c.priority).toBe(20)
    expect(f.settled).toBe(true)
    expect(f.sources.settled).toEqual({kind: 'hook', ref: 'agent-turn-complete'})
    expect(f.lastAssistantText).toBe('Migration written; run it with pnpm db:migrate.')
    expect(f.lastActivityAt).toBe(ms('2026-04-27T20:16:30Z'))
    expect(f.messages).toBe(2)
  })

  it('lifecycle Stop settles too', () => {
    const c = hookContribution(IDS.working, [
      lifecycle('2026-04-27T20:16:30Z', 'Stop', IDS.working, {last_assistant_message: 'Done.', stop_hook_active: false}),
    ])

    const f = compose(IDS.working, {}, [c])

    expect(f.settled).toBe(true)
    expect(f.lastAssistantText).toBe('Done.')
  })

  it('a turn-complete never latches: a newer turn in the transcript reads working again', () => {
    const c = hookContribution(IDS.working, [notify('2026-04-27T20:16:30Z', IDS.working, 'turn-1', 'first answer')])
    const nextTurn = [
      '{"timestamp":"2026-04-27T20:20:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"turn-2"}}',
      '{"timestamp":"2026-04-27T20:20:00.010Z","type":"event_msg","payload":{"type":"user_message","message":"and the orders table"}}',
    ]

    const f = compose(IDS.working, {append: nextTurn}, [c])

    expect(f.settled).toBe(false)
    expect(f.turnIndex).toBe(2)
    expect(f.sources.settled?.kind).toBe('transcript')
  })

  it("a turn-complete for the transcript's current turn stands even when lines were written after it", () => {
    const c = hookContribution(IDS.working, [notify('2026-04-27T20:15:45.500Z', IDS.working, 'turn-1', 'answer')])

    const f = compose(IDS.working, {}, [c])

    expect(f.settled).toBe(true)
  })

  it('PermissionRequest opens an approval block with the tool name', () => {
    const c = hookContribution(IDS.working, [
      lifecycle('2026-04-27T20:15:47Z', 'PreToolUse', IDS.working, {tool_name: 'Bash'}),
      lifecycle('2026-04-27T20:15:47.200Z', 'PermissionRequest', IDS.working, {
        tool_input: {command: 'psql -c "\\d users"'},
        tool_name: 'Bash',
      }),
    ])

    const f = compose(IDS.working, {}, [c])

    expect(f.approval).toEqual({at: ms('2026-04-27T20:15:47.200Z'), source: {kind: 'hook', ref: 'PermissionRequest'}, text: 'Bash'})
    expect(f.settled).toBe(false)
  })

  it('the approval clears once the transcript moves past it (the call got its output)', () => {
    const c = hookContribution(IDS.working, [lifecycle('2026-04-27T20:15:47.200Z', 'PermissionRequest', IDS.working, {tool_name: 'Bash'})])
    const answered = [
      '{"timestamp":"2026-04-27T20:16:05.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_w1","output":"Table users"}}',
    ]

    const f = compose(IDS.working, {append: answered}, [c])

    expect(f.approval).toBe(null)
    expect(f.settled).toBe(false)
  })

  it('hook runs persisted in the rollout (hook_started / hook_completed) do not hide the approval', () => {
    const c = hookContribution(IDS.working, [lifecycle('2026-04-27T20:15:47.200Z', 'PermissionRequest', IDS.working, {tool_name: 'Bash'})])
    const bookkeeping = [
      '{"timestamp":"2026-04-27T20:15:47.300Z","type":"event_msg","payload":{"type":"hook_started","hook_event_name":"PermissionRequest"}}',
      '{"timestamp":"2026-04-27T20:15:47.400Z","type":"event_msg","payload":{"type":"hook_completed","hook_event_name":"PermissionRequest"}}',
      '{"timestamp":"2026-04-27T20:15:47.500Z","type":"event_msg","payload":{"type":"token_count","info":null}}',
    ]

    const f = compose(IDS.working, {append: bookkeeping}, [c])

    expect(f.approval?.text).toBe('Bash')
  })

  it('PostToolUse after the permission prompt clears it', () => {
    const c = hookContribution(IDS.working, [
      lifecycle('2026-04-27T20:15:47.200Z', 'PermissionRequest', IDS.working, {tool_name: 'Bash'}),
      lifecycle('2026-04-27T20:15:52Z', 'PostToolUse', IDS.working, {tool_name: 'Bash'}),
    ])

    const f = compose(IDS.working, {}, [c])

    expect(f.approval).toBe(null)
    expect(f.settled).toBe(false)
  })

  it('a fresh UserPromptSubmit clears an error banner and starts a turn before the transcript catches up', () => {
    const c = hookContribution(IDS.error, [lifecycle('2026-04-28T16:30:00Z', 'UserPromptSubmit', IDS.error, {prompt: 'try again'})])

    const f = compose(IDS.error, {}, [c])

    expect(f.error).toBe(null)
    expect(f.settled).toBe(false)
    expect(f.turnStartedAt).toBe(ms('2026-04-28T16:30:00Z'))
  })

  it('a stale hook only fills in what the transcript does not know', () => {
    const c = hookContribution(IDS.legacy, [
      lifecycle('2025-05-07T17:00:00Z', 'SessionStart', IDS.legacy, {cwd: '/home/dev/tool', source: 'startup'}),
      lifecycle('2025-05-07T17:00:01Z', 'UserPromptSubmit', IDS.legacy, {cwd: '/home/dev/tool', prompt: 'Create a README'}),
    ])

    const f = codex.compose!(IDS.legacy, [...feed(rolloutPath(IDS.legacy)).contributions, c])

    expect(f.cwd).toBe('/home/dev/tool')
    expect(f.model).toBe('gpt-5.5')
    expect(f.settled).toBe(true)
  })

  it('keeps sessions apart and ignores unknown events', () => {
    const state = reduceAll([
      notify('2026-04-27T20:16:30Z', 'A', 'turn-1', 'a'),
      lifecycle('2026-04-27T20:16:31Z', 'PermissionRequest', 'B', {tool_name: 'apply_patch'}),
      lifecycle('2026-04-27T20:16:32Z', 'SubagentStop', 'A', {agent_id: 'x'}),
    ])

    expect(hooks.contribution(state, 'A')?.facts.settled).toBe(true)
    expect(hooks.contribution(state, 'B')?.facts.approval?.text).toBe('apply_patch')
    expect(hooks.contribution(state, 'C')).toBe(null)
    expect(JSON.parse(JSON.stringify(state))).toEqual(state)
  })
})

describe('codex compose: process claims', () => {
  it('a live process holding the rollout becomes the process fact', () => {
    const [rollout] = feed(rolloutPath(IDS.working)).contributions
    const claimed: CheckedContribution = {
      ...rollout!,
      processAlive: true,
      processClaim: {heartbeatAt: null, pid: 4242, source: {kind: 'process', ref: '/proc/4242/fd'}, startedAt: 1777320900000, status: null},
    }

    const f = codex.compose!(IDS.working, [claimed])

    expect(f.process).toEqual({
      alive: true,
      exited: null,
      heartbeatAt: null,
      pid: 4242,
      source: {kind: 'process', ref: '/proc/4242/fd'},
      status: null,
    })
    expect(f.sources.process?.kind).toBe('process')
    expect(f.settled).toBe(false)
  })

  it('an open turn no process holds reads as a process that died (no pid to signal)', () => {
    const f = codex.compose!(IDS.working, feed(rolloutPath(IDS.working)).contributions)

    expect(f.settled).toBe(false)
    expect(f.process).toMatchObject({alive: false, exited: 'crash', pid: 0})
  })

  it('a settled turn no process holds has no process fact', () => {
    const settled = feed(rolloutPath(IDS.working)).contributions.map((c) => ({...c, facts: {...c.facts, settled: true}}))
    expect(codex.compose!(IDS.working, settled).process).toBe(null)
  })
})
