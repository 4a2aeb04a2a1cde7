import {describe, expect, it} from 'vitest'

import {base, feedRecords} from './engine.js'

const ts = (seconds: number): string => new Date(base + seconds * 1000).toISOString()
const user = (seconds: number, content: unknown, extra: Record<string, unknown> = {}) => ({
  cwd: '/tmp/proj',
  message: {content, role: 'user'},
  timestamp: ts(seconds),
  type: 'user',
  ...extra,
})
const assistant = (seconds: number, id: string, content: unknown[], extra: Record<string, unknown> = {}) => ({
  cwd: '/tmp/proj',
  message: {content, id, model: 'claude-sonnet-4-5', role: 'assistant'},
  timestamp: ts(seconds),
  type: 'assistant',
  ...extra,
})
const toolUse = (id: string, name: string, input: Record<string, unknown> = {}) => ({id, input, name, type: 'tool_use'})
const toolResult = (id: string, content: string, isError = false) => ({content, is_error: isError, tool_use_id: id, type: 'tool_result'})
const text = (t: string) => ({text: t, type: 'text'})

describe('Claude Code transcript lines', () => {
  it('an interrupt written into the tool result settles the turn', () => {
    const {facts} = feedRecords([
      user(0, 'go'),
      assistant(1, 'm1', [toolUse('t1', 'Bash', {command: 'sleep 100'})]),
      user(5, [toolResult('t1', '[Request interrupted by user for tool use]', true)]),
    ])

    expect(facts.settled).toBe(true)
  })

  it('an interrupt line settles even with a tool call left open', () => {
    const {facts} = feedRecords([
      user(0, 'go'),
      assistant(1, 'm1', [toolUse('t1', 'Bash')]),
      user(5, [text('[Request interrupted by user]')]),
    ])

    expect(facts.settled).toBe(true)
  })

  it('a thinking-only line is not the end of a turn', () => {
    const {facts} = feedRecords([user(0, 'go'), assistant(1, 'm1', [{signature: 's', thinking: 'hmm', type: 'thinking'}])])

    expect(facts.settled).toBe(false)
  })

  it('a slash command that reaches the model is a turn; a local one is not', () => {
    const prompted = feedRecords([
      user(0, '<command-message>review is running…</command-message>\n<command-name>/review</command-name>'),
      user(0.1, [text('Review the diff and report.')], {isMeta: true}),
      assistant(2, 'm1', [text('Looks good.')]),
    ]).facts
    const local = feedRecords([
      user(0, 'hello'),
      assistant(1, 'm1', [text('hi')]),
      user(2, '<command-name>/cost</command-name>'),
      user(2.1, '<local-command-stdout>Total cost: $0.01</local-command-stdout>'),
    ]).facts

    expect(prompted).toMatchObject({messages: 2, settled: true, title: null, turnIndex: 1, turnStartedAt: base})
    expect(local).toMatchObject({messages: 2, settled: true, title: 'hello', turnIndex: 1})
  })

  it('newer builds write local commands as system lines', () => {
    const {facts} = feedRecords([
      user(0, 'hello'),
      assistant(1, 'm1', [text('hi')]),
      {content: '<command-name>/model</command-name>', subtype: 'local_command', timestamp: ts(2), type: 'system'},
      {
        content: '<local-command-stdout>Set model to sonnet</local-command-stdout>',
        subtype: 'local_command',
        timestamp: ts(2.1),
        type: 'system',
      },
    ])

    expect(facts.settled).toBe(true)
  })

  it('skips injected text for the title and counts an image prompt', () => {
    const {facts} = feedRecords([
      user(0, [text('<system-reminder>be brief</system-reminder>'), text('  Fix the login bug\nit fails on Safari  ')]),
      assistant(1, 'm1', [text('Fixed.')]),
      user(2, [{source: {data: 'x', media_type: 'image/png', type: 'base64'}, type: 'image'}]),
      assistant(3, 'm2', [text('A cat.')]),
    ])

    expect(facts).toMatchObject({messages: 4, title: 'Fix the login bug', turnIndex: 2})
  })

  it('compact summaries and meta lines are not prompts', () => {
    const {facts} = feedRecords([
      user(0, 'start'),
      assistant(1, 'm1', [text('ok')]),
      {
        compactMetadata: {trigger: 'auto'},
        content: 'Conversation compacted',
        subtype: 'compact_boundary',
        timestamp: ts(2),
        type: 'system',
      },
      user(2.1, 'This session is being continued from a previous conversation…', {isCompactSummary: true}),
      user(2.2, '<local-command-caveat>Caveat</local-command-caveat>', {isMeta: true}),
    ])

    expect(facts).toMatchObject({messages: 2, settled: true, title: 'start', turnIndex: 1})
  })

  it('an async agent is not background work (its own file speaks for it); KillShell ends a shell', () => {
    const {facts: running} = feedRecords([
      user(0, 'go'),
      assistant(1, 'm1', [toolUse('t1', 'Agent', {prompt: 'dig', run_in_background: true})]),
      user(1.1, [toolResult('t1', 'Async agent launched successfully.')], {
        toolUseResult: {agentId: 'ag1', isAsync: true, status: 'async_launched'},
      }),
      assistant(2, 'm2', [toolUse('t2', 'Bash', {command: 'tail -f log', run_in_background: true})]),
      user(2.1, [toolResult('t2', 'Command running in background with ID: sh1')], {toolUseResult: {backgroundTaskId: 'sh1'}}),
      assistant(3, 'm3', [text('Both started.')]),
    ])
    const {facts: done} = feedRecords([
      user(0, 'go'),
      assistant(1, 'm1', [toolUse('t1', 'Agent', {prompt: 'dig', run_in_background: true})]),
      user(1.1, [toolResult('t1', 'Async agent launched successfully.')], {
        toolUseResult: {agentId: 'ag1', isAsync: true, status: 'async_launched'},
      }),
      assistant(2, 'm2', [toolUse('t2', 'Bash', {command: 'tail -f log', run_in_background: true})]),
      user(2.1, [toolResult('t2', 'Command running in background with ID: sh1')]),
      assistant(3, 'm3', [text('Both started.')]),
      {
        attachment: {
          prompt: '<task-notification>\n<task-id>ag1</task-id>\n<status>completed</status>\n</task-notification>',
          type: 'queued_command',
        },
        timestamp: ts(9),
        type: 'attachment',
      },
      assistant(10, 'm4', [toolUse('t3', 'KillShell', {shell_id: 'sh1'})]),
      user(10.1, [toolResult('t3', 'Shell sh1 killed')]),
      assistant(11, 'm5', [text('Stopped the tail.')]),
    ])

    // The async agent is a child session of its own (child_producing), not background work.
    expect(running).toMatchObject({backgroundWork: 1, settled: true})
    expect(done).toMatchObject({backgroundWork: 0, settled: true})
  })

  it('a monitor event without a status leaves the task open', () => {
    const {facts} = feedRecords([
      user(0, 'watch it'),
      assistant(1, 'm1', [toolUse('t1', 'Bash', {command: 'watch', run_in_background: true})]),
      user(1.1, [toolResult('t1', 'started')], {toolUseResult: {backgroundTaskId: 'b1'}}),
      assistant(2, 'm2', [text('Watching.')]),
      {
        content: '<task-notification>\n<task-id>b1</task-id>\n<summary>Monitor event</summary>\n</task-notification>',
        operation: 'enqueue',
        timestamp: ts(5),
        type: 'queue-operation',
      },
    ])

    expect(facts).toMatchObject({backgroundWork: 1, queued: 1})
  })

  it('a synthetic assistant model is ignored; an error banner keeps the last real model', () => {
    const {facts} = feedRecords([
      user(0, 'go'),
      assistant(1, 'm1', [text('hi')]),
      user(2, 'more'),
      assistant(3, 'e1', [text('API Error: 401 · Please run /login')], {
        error: 'authentication_failed',
        isApiErrorMessage: true,
        message: {content: [text('API Error: 401 · Please run /login')], id: 'e1', model: '<synthetic>', role: 'assistant'},
      }),
    ])

    expect(facts).toMatchObject({error: {text: 'API Error: 401 · Please run /login'}, lastAssistantText: 'hi', model: 'claude-sonnet-4-5'})
  })

  it('blank lines and unknown record types are fine; non-objects are malformed', () => {
    const {facts, rejected} = feedRecords(['', '   ', {type: 'pr-link', url: 'x'}, '[1,2]', '42', user(0, 'go')])

    expect(rejected).toBe(2)
    expect(facts).toMatchObject({messages: 1, parseErrors: 2})
  })

  it('a session id copied from an older file does not matter: the file name is the session', () => {
    const {facts} = feedRecords(
      [user(0, 'go', {sessionId: 'older'}), assistant(1, 'm1', [text('ok')], {sessionId: 'newer'})],
      'c0ffee00-0000-4000-8000-000000000001',
    )

    expect(facts.messages).toBe(2)
  })
})
