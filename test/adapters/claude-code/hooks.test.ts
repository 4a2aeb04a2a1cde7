import {describe, expect, it} from 'vitest'

import {claudeCode} from '../../../src/adapters/claude-code/index.js'
import {base, compose, feedFile, hook, reduceHooks, sid, transcriptPath} from './engine.js'

const S = sid(4)
const common = {cwd: '/tmp/proj', permission_mode: 'default', session_id: S, transcript_path: transcriptPath(4)}
const ev = (seconds: number, name: string, extra: Record<string, unknown> = {}) =>
  hook(base + seconds * 1000, {...common, hook_event_name: name, ...extra})

const hookFacts = (events: ReturnType<typeof ev>[]) => reduceHooks(events)[0]

describe('Claude Code hooks', () => {
  it('belong to their session_id; payloads without one are dropped', () => {
    expect(claudeCode.hooks?.sessionOf(ev(0, 'Stop'))).toBe(S)
    expect(claudeCode.hooks?.sessionOf(hook(0, {hook_event_name: 'Stop'}))).toBeNull()
  })

  it('PermissionRequest opens an approval (tool name) with priority 20', () => {
    const c = hookFacts([
      ev(0, 'UserPromptSubmit', {prompt: 'go'}),
      ev(2, 'PreToolUse', {tool_name: 'Bash'}),
      ev(3, 'PermissionRequest', {tool_name: 'Bash'}),
    ])

    expect(c).toMatchObject({
      facts: {approval: {at: base + 3000, source: {kind: 'hook', ref: 'PermissionRequest'}, text: 'Bash'}, settled: false},
      nativeId: S,
      priority: 20,
    })
  })

  it('a permission_prompt notification opens one too, naming the tool from the message', () => {
    const c = hookFacts([
      ev(3, 'Notification', {message: 'Claude needs your permission to use Write', notification_type: 'permission_prompt'}),
    ])

    expect(c?.facts.approval).toMatchObject({source: {kind: 'hook', ref: 'Notification'}, text: 'Write'})
  })

  it('the notification after a PermissionRequest keeps when the prompt opened', () => {
    const c = hookFacts([
      ev(3, 'PermissionRequest', {tool_name: 'Bash'}),
      ev(9, 'Notification', {message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt'}),
      ev(70, 'Notification', {message: 'Claude is waiting for your input', notification_type: 'idle_prompt'}),
    ])

    expect(c?.facts.approval).toMatchObject({at: base + 3000, source: {ref: 'PermissionRequest'}, text: 'Bash'})
    expect(c?.facts.settled).toBeUndefined()
  })

  it.each(['PostToolUse', 'UserPromptSubmit', 'Stop', 'SessionEnd'])('%s closes the approval', (name) => {
    const c = hookFacts([ev(3, 'PermissionRequest', {tool_name: 'Bash'}), ev(5, name, {tool_name: 'Bash'})])

    expect(c?.facts.approval).toBeNull()
  })

  it('an elicitation dialog is a question; AskUserQuestion in PreToolUse too', () => {
    const dialog = hookFacts([ev(1, 'Notification', {message: 'Pick a server', notification_type: 'elicitation_dialog'})])
    const ask = hookFacts([ev(1, 'PreToolUse', {tool_input: {questions: [{question: 'Which one?'}]}, tool_name: 'AskUserQuestion'})])
    const answered = hookFacts([
      ev(1, 'PreToolUse', {tool_input: {questions: [{question: 'Which one?'}]}, tool_name: 'AskUserQuestion'}),
      ev(9, 'PostToolUse', {tool_name: 'AskUserQuestion'}),
    ])

    expect(dialog?.facts.question).toMatchObject({source: {ref: 'Notification'}, text: 'Pick a server'})
    expect(ask?.facts.question).toMatchObject({source: {ref: 'PreToolUse'}, text: 'Which one?'})
    expect(answered?.facts.question).toBeNull()
  })

  it('UserPromptSubmit and PreToolUse are working; Stop settles; SessionEnd exits', () => {
    expect(hookFacts([ev(0, 'UserPromptSubmit')])?.facts.settled).toBe(false)
    expect(hookFacts([ev(0, 'Stop')])?.facts.settled).toBe(true)
    expect(hookFacts([ev(0, 'Stop'), ev(1, 'PreToolUse', {tool_name: 'Read'})])?.facts.settled).toBe(false)
    expect(hookFacts([ev(0, 'Stop'), ev(1, 'SessionEnd', {reason: 'prompt_input_exit'})])).toMatchObject({
      extra: {exitedAt: base + 1000},
      facts: {settled: true, sources: {settled: {kind: 'hook', ref: 'SessionEnd'}}},
    })
  })

  it('composed: a hook approval over a transcript waiting on its tool call', () => {
    const f = compose(S, [
      ...feedFile(transcriptPath(4)).contributions,
      ...reduceHooks([ev(2.5, 'PreToolUse', {tool_name: 'Bash'}), ev(2.6, 'PermissionRequest', {tool_name: 'Bash'})]),
    ])

    expect(f.approval).toMatchObject({source: {kind: 'hook', ref: 'PermissionRequest'}, text: 'Bash'})
    expect(f.settled).toBe(false)
    expect(f.lastActivityAt).toBe(base + 2600)
  })

  it('composed: a hook approval older than the next user-side line is stale', () => {
    // Session 02: the AskUserQuestion was answered at +60 s.
    const f = compose(sid(2), [
      ...feedFile(transcriptPath(2)).contributions,
      ...reduceHooks([hook(base + 10_000, {...common, hook_event_name: 'PermissionRequest', session_id: sid(2), tool_name: 'Bash'})]),
    ])

    expect(f.approval).toBeNull()
  })

  it('composed: Stop after the last line settles; a newer transcript line outranks an old Stop', () => {
    const stop = reduceHooks([ev(5, 'Stop', {last_assistant_message: 'All done.'})])
    const settledByHook = compose(S, [...feedFile(transcriptPath(4)).contributions, ...stop])
    const prompt = compose(sid(9), [
      ...feedFile(transcriptPath(9), {limit: 5}).contributions,
      ...reduceHooks([hook(base + 5000, {...common, hook_event_name: 'Stop', session_id: sid(9)})]),
    ])

    expect(settledByHook).toMatchObject({lastAssistantText: 'All done.', settled: true, sources: {settled: {kind: 'hook', ref: 'Stop'}}})
    expect(prompt.settled).toBe(false)
  })

  it('composed: UserPromptSubmit after an API error clears it before the transcript catches up', () => {
    const f = compose(sid(9), [
      ...feedFile(transcriptPath(9), {limit: 4}).contributions,
      ...reduceHooks([hook(base + 50_000, {...common, hook_event_name: 'UserPromptSubmit', prompt: 'again', session_id: sid(9)})]),
    ])

    expect(f.error).toBeNull()
    expect(f.settled).toBe(false)
  })

  it('composed: SessionEnd after a turn left running settles it (the user quit)', () => {
    const f = compose(sid(3), [
      ...feedFile(transcriptPath(3)).contributions,
      ...reduceHooks([hook(base + 30_000, {...common, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit', session_id: sid(3)})]),
    ])

    expect(f).toMatchObject({settled: true, sources: {settled: {kind: 'hook', ref: 'SessionEnd'}}})
  })

  it('composed: an idle reminder is not activity; a permission request is', () => {
    const idle = compose(sid(2), [
      ...feedFile(transcriptPath(2)).contributions,
      ...reduceHooks([
        hook(base + 200_000, {...common, hook_event_name: 'Notification', notification_type: 'idle_prompt', session_id: sid(2)}),
      ]),
    ])
    const asked = compose(S, [
      ...feedFile(transcriptPath(4)).contributions,
      ...reduceHooks([ev(40, 'PermissionRequest', {tool_name: 'Bash'})]),
    ])

    expect(idle.lastActivityAt).toBe(base + 63_000)
    expect(asked.lastActivityAt).toBe(base + 40_000)
  })

  it('composed: SessionEnd ends background work', () => {
    const f = compose(sid(5), [
      ...feedFile(transcriptPath(5), {limit: 5}).contributions,
      ...reduceHooks([hook(base + 20_000, {...common, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit', session_id: sid(5)})]),
    ])

    expect(f.backgroundWork).toBe(0)
  })
})
