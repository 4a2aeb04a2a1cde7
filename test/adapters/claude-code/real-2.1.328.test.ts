/**
 * Files Claude Code 2.1.328 wrote in the conformance runs (test/fixtures/claude-code/real-2.1.328),
 * read at the moment a user saw the screen: a transcript as far as it had been written then, with
 * the registry file of that moment. The registry's pid and start time are swapped for this test
 * process's own, so its claim checks out as a live process, as the TUI's did.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

import {classifyWorkState} from '../../../src/core/model/work-state.js'
import {EMPTY_RECORDS} from '../../../src/core/model/types.js'
import {compose, feedFile, hook, parseWhole, PROJ, processStartMs, reduceHooks, HOME} from './engine.js'

const NO_CHILDREN = {asking: false, producing: false}
const REAL = fileURLToPath(new URL('../../fixtures/claude-code/real-2.1.328/', import.meta.url))

/** The registry file as the live process wrote it, its pid and start time this process's. */
function registry(name: string): {contributions: ReturnType<typeof parseWhole>; sessionId: string} {
  const rec = JSON.parse(readFileSync(join(REAL, name), 'utf8')) as Record<string, unknown>
  const live = {...rec, pid: process.pid, startedAt: processStartMs(process.pid)}
  return {
    contributions: parseWhole(join(HOME, 'sessions', `${process.pid}.json`), JSON.stringify(live)),
    sessionId: String(rec['sessionId']),
  }
}

/** The transcript up to and including the first line matching `until` (all of it without). */
function transcript(name: string, sessionId: string, until?: RegExp) {
  const lines = readFileSync(join(REAL, name), 'utf8').split('\n')
  const limit = until === undefined ? undefined : lines.findIndex((l) => until.test(l)) + 1
  if (limit === 0) throw new Error(`no line matches ${until}`)
  return feedFile(join(REAL, name), {as: join(PROJ, `${sessionId}.jsonl`), limit}).contributions
}

describe('Claude Code 2.1.328 (real files)', () => {
  it('registry waitingFor "permission prompt" is an approval for the open tool, not a working turn', () => {
    const reg = registry('registry-permission-prompt.json')
    const f = compose(reg.sessionId, [...transcript('approval-full.jsonl', reg.sessionId, /"type":"tool_use"/), ...reg.contributions])
    expect(f.approval).toMatchObject({text: 'Bash'})
    expect(f.approval?.source).toMatchObject({kind: 'registry'})
    expect(f.question).toBeNull()
    expect(f.settled).toBe(false)
    expect(f.process).toMatchObject({alive: true, status: 'waiting'})
  })

  it('registry waitingFor "input needed" is the AskUserQuestion question, never an approval', () => {
    const reg = registry('registry-input-needed.json')
    const f = compose(reg.sessionId, [...transcript('question-full.jsonl', reg.sessionId, /"type":"tool_use"/), ...reg.contributions])
    expect(f.question).toMatchObject({text: 'Which colour should the button be?'})
    expect(f.approval).toBeNull()
  })

  it('registry status "shell" after the turn is open background work, the process not producing', () => {
    const reg = registry('registry-shell.json')
    const f = compose(reg.sessionId, [...transcript('bgshell-full.jsonl', reg.sessionId), ...reg.contributions])
    expect(f.settled).toBe(true)
    expect(f.backgroundWork).toBeGreaterThanOrEqual(1)
    expect(f.process).toMatchObject({alive: true, status: 'idle'})
  })

  it('registry "busy" from before the turn_duration that counts a pending background agent: settled, not producing, not a shell', () => {
    const reg = registry('registry-busy-subagent.json')
    const contributions = [...transcript('subagent-full.jsonl', reg.sessionId, /"subtype":"turn_duration"/), ...reg.contributions]
    expect(readFileSync(join(REAL, 'subagent-full.jsonl'), 'utf8')).toContain('"pendingBackgroundAgentCount":1')
    const f = compose(reg.sessionId, contributions)
    expect(f.settled).toBe(true)
    expect(f.process).toMatchObject({alive: true, status: 'idle'})
    expect(f.backgroundWork).toBe(0)
  })

  it("the same busy registry while the subagent's notification has woken the parent again: producing", () => {
    const reg = registry('registry-busy-subagent.json')
    const f = compose(reg.sessionId, [...transcript('subagent-full.jsonl', reg.sessionId, /<task-notification>/), ...reg.contributions])
    expect(f.settled).toBe(false)
    expect(f.process).toMatchObject({alive: true, status: 'working'})
  })

  it("the subagent's own file is a child session of the parent", () => {
    const sub = join(REAL, 'subagent', 'agent-a410a2495beb61ba0.jsonl')
    const parent = '089dca1e-c736-47ba-98b5-f68d60bdbe3b'
    const id = `${parent}/agent-a410a2495beb61ba0`
    const cs = feedFile(sub, {as: join(PROJ, parent, 'subagents', 'agent-a410a2495beb61ba0.jsonl')}).contributions
    expect(compose(id, cs)).toMatchObject({parentNativeId: parent})
  })

  it('a finished subagent (meta.json `finished: true`) reads done/delivered: its result went to its parent', () => {
    const sub = join(REAL, 'subagent', 'agent-a410a2495beb61ba0.jsonl')
    const parent = '089dca1e-c736-47ba-98b5-f68d60bdbe3b'
    const id = `${parent}/agent-a410a2495beb61ba0`
    const dir = join(PROJ, parent, 'subagents')
    const metaText = readFileSync(join(REAL, 'subagent', 'agent-a410a2495beb61ba0.meta.json'), 'utf8')
    expect(JSON.parse(metaText)).toMatchObject({finished: true, requestNonInteractive: true})
    const transcriptOnly = feedFile(sub, {as: join(dir, 'agent-a410a2495beb61ba0.jsonl')}).contributions
    const meta = parseWhole(join(dir, 'agent-a410a2495beb61ba0.meta.json'), metaText)
    const finished = compose(id, [...transcriptOnly, ...meta])
    expect(finished).toMatchObject({deliveredToParent: true, settled: true})
    expect(classifyWorkState({children: NO_CHILDREN, facts: finished, records: EMPTY_RECORDS}, Date.now())).toMatchObject({
      reason: 'delivered',
      state: 'done',
    })
    // While it runs (no `finished` yet) it is not delivered.
    const running = parseWhole(
      join(dir, 'agent-a410a2495beb61ba0.meta.json'),
      JSON.stringify({...JSON.parse(metaText), finished: undefined}),
    )
    expect(compose(id, [...transcriptOnly, ...running]).deliveredToParent).toBeUndefined()
  })

  it('a fresh TUI: the registry alone makes a session (its cwd), new and not settled', () => {
    const reg = registry('registry-fresh-idle.json')
    expect(reg.contributions[0]?.facts.cwd).toBe('/tmp/cast-cc-explore-iS0ZlQ/project')
    const f = compose(reg.sessionId, reg.contributions)
    expect(f).toMatchObject({messages: 0, settled: false})
    expect(f.process).toMatchObject({alive: true, status: 'idle'})
  })

  it('a registry left by kill -9 (status busy) is a dead process', () => {
    const rec = JSON.parse(readFileSync(join(REAL, 'registry-kill9-busy.json'), 'utf8')) as Record<string, unknown>
    expect(rec['status']).toBe('busy')
    const cs = parseWhole(join(HOME, 'sessions', `${String(rec['pid'])}.json`), JSON.stringify({...rec, pid: 2 ** 22 - 3}))
    const f = compose(String(rec['sessionId']), cs)
    expect(f.process).toMatchObject({alive: false})
  })
})

describe('Claude Code 2.1.328 hooks (payload shapes seen on the real CLI, real-clis.md)', () => {
  const sid = '76890e24-14aa-4d4f-8608-cdd0a9338e07'
  const base = Date.parse('2026-12-01T08:58:00.000Z')
  const ask = {
    questions: [
      {header: 'Colour', multiSelect: false, options: [{label: 'Red'}, {label: 'Blue'}], question: 'Which colour should the button be?'},
    ],
  }

  it('PermissionRequest for AskUserQuestion and the later permission_prompt Notification are the question, not an approval', () => {
    const [c] = reduceHooks([
      hook(base, {hook_event_name: 'UserPromptSubmit', prompt: 'ask me', session_id: sid}),
      hook(base + 100, {hook_event_name: 'PreToolUse', session_id: sid, tool_input: ask, tool_name: 'AskUserQuestion'}),
      hook(base + 110, {hook_event_name: 'PermissionRequest', session_id: sid, tool_input: ask, tool_name: 'AskUserQuestion'}),
      hook(base + 6100, {
        hook_event_name: 'Notification',
        message: 'Claude needs your permission',
        notification_type: 'permission_prompt',
        session_id: sid,
      }),
    ])
    expect(c?.facts.question).toMatchObject({text: 'Which colour should the button be?'})
    expect(c?.facts.approval).toBeNull()
  })

  it('StopFailure ends the turn with the error', () => {
    const [c] = reduceHooks([
      hook(base, {hook_event_name: 'UserPromptSubmit', prompt: 'hello', session_id: sid}),
      hook(base + 5000, {error: 'rate_limit', hook_event_name: 'StopFailure', session_id: sid}),
    ])
    expect(c?.facts.settled).toBe(true)
    expect(c?.facts.error).toMatchObject({text: 'rate_limit'})
  })

  it("a subagent's PermissionRequest (agent_id) outlives the parent's Stop and turn end; SubagentStop closes it", () => {
    const events = [
      hook(base, {hook_event_name: 'UserPromptSubmit', prompt: 'start a helper', session_id: sid}),
      hook(base + 900, {
        agent_id: 'a410a2495beb61ba0',
        agent_type: 'general-purpose',
        hook_event_name: 'PermissionRequest',
        session_id: sid,
        tool_name: 'Bash',
      }),
      hook(base + 905, {
        background_tasks: [{id: 'a410a2495beb61ba0', status: 'running', type: 'subagent'}],
        hook_event_name: 'Stop',
        session_id: sid,
      }),
    ]
    const [open] = reduceHooks(events)
    expect(open?.facts.approval).toMatchObject({text: 'Bash'})
    const [closed] = reduceHooks([
      ...events,
      hook(base + 9000, {agent_id: 'a410a2495beb61ba0', hook_event_name: 'SubagentStop', session_id: sid}),
    ])
    expect(closed?.facts.approval).toBeNull()
  })
})
