import {cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, describe, expect, it} from 'vitest'

import {copilot, copilotHookEvent, permissionText} from '../../../src/adapters/copilot/index.js'
import type {AdapterEnv, HookEvent} from '../../../src/core/ingest/adapter.js'
import {compose, discover, factsOf, feedJsonl, processStartMs, readAll, readOne, reduceHooks} from '../gemini/harness.js'

const HOME = fileURLToPath(new URL('../../fixtures/copilot', import.meta.url))
const ctx: AdapterEnv = {env: {COPILOT_CONFIG_DIR: HOME}, home: '/home/nobody'}
const STATE = join(HOME, 'session-state')
const base = Date.parse('2026-08-01T10:00:00.000Z')
const sec = (s: number): number => base + s * 1000
const sid = (k: number): string => `c0000000-0000-4000-8000-0000000000${String(k).padStart(2, '0')}`
const facts = (k: number, extra: Parameters<typeof factsOf>[3] = [], env = ctx) => factsOf(copilot, env, sid(k), extra)

const temps: string[] = []
afterAll(() => {
  for (const d of temps) rmSync(d, {force: true, recursive: true})
})

/** A copy of the fixture tree we may add files to. */
function copyHome(): {env: AdapterEnv; state: string} {
  const dir = mkdtempSync(join(tmpdir(), 'cast-copilot-'))
  temps.push(dir)
  cpSync(HOME, dir, {recursive: true})
  return {env: {env: {COPILOT_CONFIG_DIR: dir}, home: '/home/nobody'}, state: join(dir, 'session-state')}
}

const hook = (seconds: number, payload: Record<string, unknown>, k = 1): HookEvent => ({
  agent: 'copilot',
  at: sec(seconds),
  payload: {cwd: '/tmp/webapp', session_id: sid(k), timestamp: new Date(sec(seconds)).toISOString(), ...payload},
})

describe('Copilot CLI paths', () => {
  it('reads $COPILOT_HOME (what 1.0.102 documents), else $COPILOT_CONFIG_DIR, else ~/.copilot; the legacy folder too', () => {
    expect(copilot.roots(ctx)).toEqual([STATE, join(HOME, 'history-session-state')])
    expect(copilot.roots({env: {COPILOT_HOME: '/x/cop'}, home: '/home/u'})).toEqual([
      '/x/cop/session-state',
      '/x/cop/history-session-state',
    ])
    expect(copilot.roots({env: {COPILOT_CONFIG_DIR: '/y/old', COPILOT_HOME: '/x/cop'}, home: '/home/u'})[0]).toBe('/x/cop/session-state')
    expect(copilot.roots({env: {}, home: '/home/u'})[0]).toBe('/home/u/.copilot/session-state')
  })

  it('matches events.jsonl, the flat legacy file, workspace.yaml and lock files', () => {
    const found = discover(copilot, ctx).map((d) => `${d.match.kind}:${d.match.role}:${d.path.slice(STATE.length + 1)}`)

    expect(found).toContain(`jsonl:events:${sid(1)}/events.jsonl`)
    expect(found).toContain(`jsonl:events:${sid(9)}.jsonl`)
    expect(found).toContain(`whole:workspace:${sid(1)}/workspace.yaml`)
    expect(found).toContain(`whole:lock:${sid(2)}/inuse.2147483600.lock`)
    expect(copilot.match(join(STATE, sid(1), 'session.db'), ctx)).toBeNull()
    expect(copilot.match(join(STATE, sid(1), 'checkpoints', 'index.md'), ctx)).toBeNull()
  })
})

describe('Copilot CLI events', () => {
  it('settled: turn_end after a reply with no tools; title from workspace.yaml; a clean exit', () => {
    expect(facts(1)).toMatchObject({
      createdAt: base,
      cwd: '/tmp/webapp',
      lastAssistantText: 'Added a toggle in settings.tsx.',
      messages: 2,
      model: 'gpt-5.4',
      process: null,
      settled: true,
      title: 'Add a dark mode toggle',
      turnIndex: 1,
      turnStartedAt: sec(1),
    })
  })

  it('working: a tool call still running; a lock with only a pid names no process (the process scan decides)', () => {
    const f = facts(2)

    expect(f).toMatchObject({settled: false, title: 'Run the migrations'})
    expect(f.process).toBeNull()
  })

  it('a lock holding only a live pid (as 1.0.102 writes it) is no proof of life: it names no process', () => {
    const {env, state} = copyHome()
    writeFileSync(join(state, sid(2), `inuse.${process.pid}.lock`), String(process.pid))

    const f = facts(2, [], env)
    expect(f.process).toBeNull()
    expect(f.settled).toBe(false)
  })

  it('a lock whose start time matches the live pid is alive', () => {
    const {env, state} = copyHome()
    writeFileSync(join(state, sid(2), `inuse.${process.pid}.lock`), JSON.stringify({startedAt: processStartMs(process.pid)}))

    expect(facts(2, [], env).process).toMatchObject({alive: true, exited: null, pid: process.pid})
  })

  it('a lock with a start time that does not match the live pid is pid reuse: not alive', () => {
    const {env, state} = copyHome()
    const started = processStartMs(process.pid)
    writeFileSync(join(state, sid(1), `inuse.${process.pid}.lock`), JSON.stringify({startedAt: (started ?? 0) - 3_600_000}))

    expect(facts(1, [], env).process).toMatchObject({alive: false, exited: 'clean'})
  })

  it('approval: permission.requested with no permission.completed', () => {
    const f = facts(3)

    expect(f.approval).toMatchObject({at: sec(3.2), source: {kind: 'transcript'}, text: 'bash: rm -rf dist'})
    expect(f.settled).toBe(false)
  })

  it('question: an open ask_user call', () => {
    expect(facts(4).question).toMatchObject({at: sec(2.5), text: 'GitHub Actions or CircleCI?'})
  })

  it('session.error is an error banner that ends the turn', () => {
    expect(facts(5)).toMatchObject({error: {at: sec(4), text: 'You have exceeded your premium request allowance.'}, settled: true})
  })

  it('subagents are children of the session; the running one keeps the parent working', () => {
    const {bySession} = readAll(copilot, ctx)
    const parent = facts(6)
    const done = factsOf(copilot, ctx, `${sid(6)}/task-a`)
    const running = factsOf(copilot, ctx, `${sid(6)}/task-b`)

    expect(parent).toMatchObject({messages: 2, settled: false})
    expect(done).toMatchObject({
      messages: 2,
      model: 'claude-sonnet-4.5',
      parentNativeId: sid(6),
      settled: true,
      title: 'Code review: Reviews a diff for bugs',
    })
    expect(running).toMatchObject({parentNativeId: sid(6), settled: false, title: 'Explore: Maps the session handling'})
    expect([...bySession.keys()].filter((k) => k.startsWith(sid(6)))).toHaveLength(3)
  })

  it('compaction is noted; a name the user gave wins over the first prompt', () => {
    const f = facts(7)

    expect(f).toMatchObject({settled: true, title: 'Vitest migration'})
    expect(f.sources['compaction']).toMatchObject({kind: 'transcript'})
    expect(f.sources['title']).toMatchObject({kind: 'workspace'})
  })

  it('an abort ends the turn and closes its tool call', () => {
    expect(facts(8)).toMatchObject({question: null, settled: true})
  })

  it('the older flat file reads the same', () => {
    expect(facts(9)).toMatchObject({messages: 2, model: 'claude-sonnet-4.5', settled: true, title: 'What does this repo do?'})
  })

  it('a malformed line is rejected and counted; a partial last line waits', () => {
    const path = join(STATE, sid(10), 'events.jsonl')
    const fed = feedJsonl(copilot, path, copilot.match(path, ctx)!)

    expect(fed.rejected).toBe(1)
    expect(fed.contributions[0]?.facts).toMatchObject({messages: 2, parseErrors: 1, settled: true})
  })

  it('state round-tripped through JSON between lines gives the same contributions', () => {
    for (const k of [1, 3, 6, 10]) {
      const path = join(STATE, sid(k), 'events.jsonl')
      const match = copilot.match(path, ctx)!
      expect(feedJsonl(copilot, path, match, {roundTrip: true}).contributions).toEqual(feedJsonl(copilot, path, match).contributions)
    }
  })

  it('incremental: permission.completed appended later closes the prompt; a resume settles a crashed turn', () => {
    const path = join(STATE, sid(3), 'events.jsonl')
    const match = copilot.match(path, ctx)!
    const line = (t: number, type: string, data: Record<string, unknown>) =>
      JSON.stringify({data, id: `x${t}`, parentId: null, timestamp: new Date(sec(t)).toISOString(), type})

    const answered = feedJsonl(copilot, path, match, {
      append: [line(9, 'permission.completed', {requestId: 'perm-3', result: {kind: 'approved'}})],
    })
    const resumed = feedJsonl(copilot, join(STATE, sid(2), 'events.jsonl'), copilot.match(join(STATE, sid(2), 'events.jsonl'), ctx)!, {
      append: [line(60, 'session.resume', {context: {cwd: '/tmp/webapp'}})],
    })

    expect(answered.contributions[0]?.facts).toMatchObject({approval: null, settled: false})
    expect(resumed.contributions[0]?.facts).toMatchObject({settled: true})
  })

  it('a workspace.yaml caught mid-write fails to read and crashes nothing', () => {
    const broken = join(STATE, sid(11), 'workspace.yaml')
    const r = readOne(copilot, broken, copilot.match(broken, ctx)!)

    expect(r.failed).toEqual([broken])
  })

  it('a folder with only workspace.yaml (no event log yet) carries no facts that would make a session', () => {
    const path = join(STATE, sid(12), 'workspace.yaml')
    const [c] = readOne(copilot, path, copilot.match(path, ctx)!).contributions

    expect(c?.facts).toEqual({})
    expect(c?.extra).toMatchObject({cwd: '/tmp/webapp', role: 'workspace'})
  })

  it('a fresh folder with workspace.yaml and a lock (1.0.102 before the first prompt) is a session with no messages', () => {
    const {env, state} = copyHome()
    writeFileSync(join(state, sid(12), 'inuse.2147483601.lock'), '2147483601\n')

    expect(facts(12, [], env)).toMatchObject({cwd: '/tmp/webapp', messages: 0, process: null, turnIndex: 0})
  })

  it('permission prompts read as a tool name, with the command or file', () => {
    expect(permissionText({fileName: 'src/a.ts', kind: 'write'})).toBe('write: src/a.ts')
    expect(permissionText({kind: 'mcp', serverName: 'github', toolName: 'create_issue'})).toBe('create_issue')
    expect(permissionText(null)).toBe('tool')
  })
})

describe('Copilot CLI hooks', () => {
  const hookFacts = (events: HookEvent[]) => reduceHooks(copilot, events)[0]

  it('tells events apart in both payload shapes', () => {
    expect(copilotHookEvent({hook_event_name: 'Stop', session_id: 'a'})).toBe('Stop')
    expect(copilotHookEvent({sessionId: 'a', stopReason: 'end_turn', transcriptPath: '/x'})).toBe('Stop')
    expect(copilotHookEvent({prompt: 'hi', sessionId: 'a'})).toBe('UserPromptSubmit')
    expect(copilotHookEvent({sessionId: 'a', toolArgs: {}, toolName: 'bash'})).toBe('PreToolUse')
    expect(copilotHookEvent({sessionId: 'a', toolName: 'bash', toolResult: {}})).toBe('PostToolUse')
    expect(copilotHookEvent({hook_event_name: 'Notification', notification_type: 'permission_prompt', sessionId: 'a'})).toBe('Notification')
    expect(copilotHookEvent({error: {message: 'x'}, errorContext: 'model_call', recoverable: false, sessionId: 'a'})).toBe('ErrorOccurred')
    expect(copilot.hooks?.sessionOf({agent: 'copilot', at: 0, payload: {sessionId: 'abc'}})).toBe('abc')
  })

  it('a SessionStart carrying the first prompt (initialPrompt, as 1.0.102 sends it) starts the turn; a bare one is at the prompt', () => {
    const started = hookFacts([hook(0, {hook_event_name: 'SessionStart', initialPrompt: 'sleep for a while', source: 'new'})])
    expect(started?.facts.settled).toBe(false)
    expect(started?.extra).toMatchObject({promptAt: sec(0)})
    const bare = hookFacts([hook(0, {hook_event_name: 'SessionStart', source: 'new'})])
    expect(bare?.facts.settled).toBe(true)
    expect(bare?.extra).toMatchObject({promptAt: null})
  })

  it('UserPromptSubmit works, Stop settles, a permission_prompt notification is an approval', () => {
    expect(hookFacts([hook(0, {hook_event_name: 'UserPromptSubmit', prompt: 'go'})])?.facts.settled).toBe(false)
    expect(
      hookFacts([hook(0, {hook_event_name: 'UserPromptSubmit'}), hook(5, {hook_event_name: 'Stop', stop_reason: 'end_turn'})])?.facts
        .settled,
    ).toBe(true)
    expect(
      hookFacts([
        hook(2, {
          hook_event_name: 'Notification',
          message: 'Allow bash: npm publish?',
          notification_type: 'permission_prompt',
          title: 'Permission needed',
        }),
      ])?.facts.approval,
    ).toEqual({
      at: sec(2),
      source: {kind: 'hook', ref: 'Notification'},
      text: 'Allow bash: npm publish?',
    })
  })

  it('ask_user in PreToolUse is a question until its PostToolUse; a fatal error is a banner', () => {
    const open = hookFacts([hook(1, {hook_event_name: 'PreToolUse', tool_input: {question: 'Which region?'}, tool_name: 'ask_user'})])
    const closed = hookFacts([
      hook(1, {hook_event_name: 'PreToolUse', tool_input: {question: 'Which region?'}, tool_name: 'ask_user'}),
      hook(4, {hook_event_name: 'PostToolUse', tool_name: 'ask_user'}),
    ])
    const error = hookFacts([
      hook(1, {error: {message: 'Model unavailable', name: 'Error'}, errorContext: 'model_call', recoverable: false, sessionId: sid(1)}),
    ])

    expect(open?.facts.question).toMatchObject({text: 'Which region?'})
    expect(closed?.facts.question).toBeNull()
    expect(error?.facts.error).toMatchObject({text: 'Model unavailable'})
  })

  it('composed: a hook approval over a log that shows nothing newer', () => {
    const f = facts(
      2,
      reduceHooks(copilot, [
        hook(10, {hook_event_name: 'Notification', message: 'Allow bash?', notification_type: 'permission_prompt'}, 2),
      ]),
    )

    // A lock with only a pid is no evidence either way: the hook's prompt stands.
    expect(f.approval).toMatchObject({text: 'Allow bash?'})
    const {env, state} = copyHome()
    writeFileSync(join(state, sid(2), `inuse.${process.pid}.lock`), JSON.stringify({startedAt: processStartMs(process.pid)}))
    const live = factsOf(
      copilot,
      env,
      sid(2),
      reduceHooks(copilot, [
        hook(10, {hook_event_name: 'Notification', message: 'Allow bash?', notification_type: 'permission_prompt'}, 2),
      ]),
    )
    expect(live).toMatchObject({approval: {text: 'Allow bash?'}, lastActivityAt: sec(3.5)})
  })

  it('composed: a prompt the hook saw before Copilot wrote events.jsonl counts as a message (a crash then reads dead, not empty)', () => {
    const {env, state} = copyHome()
    const k = 50
    mkdirSync(join(state, sid(k)))
    writeFileSync(join(state, sid(k), 'workspace.yaml'), `id: ${sid(k)}\ncwd: /tmp/webapp\ncreated_at: 2026-08-01T10:00:00.000Z\n`)
    const prompt = reduceHooks(copilot, [hook(1, {hook_event_name: 'UserPromptSubmit', prompt: 'sleep for a while'}, k)])
    expect(factsOf(copilot, env, sid(k), prompt)).toMatchObject({messages: 1, settled: false})
    expect(factsOf(copilot, env, sid(k), prompt).sources?.['messages']).toEqual({kind: 'hook', ref: 'UserPromptSubmit'})
    // The workspace named after the first prompt is a trace of it too; one the user named is not.
    const named = 51
    mkdirSync(join(state, sid(named)))
    const ws = (userNamed: boolean): void =>
      writeFileSync(
        join(state, sid(named), 'workspace.yaml'),
        `id: ${sid(named)}\ncwd: /tmp/webapp\nname: sleep for a while\nuser_named: ${userNamed}\ncreated_at: 2026-08-01T10:00:00.000Z\n`,
      )
    ws(false)
    expect(factsOf(copilot, env, sid(named)).messages).toBe(1)
    ws(true)
    expect(factsOf(copilot, env, sid(named)).messages).toBe(0)
    // Without the hook there is nothing to count; with a log the log's count stands.
    expect(factsOf(copilot, env, sid(k)).messages).toBe(0)
    expect(facts(1, reduceHooks(copilot, [hook(40, {hook_event_name: 'UserPromptSubmit', prompt: 'again'})])).messages).toBe(
      facts(1).messages,
    )
  })

  it('composed: a Stop newer than the log settles it; an older one does not', () => {
    expect(facts(2, reduceHooks(copilot, [hook(20, {hook_event_name: 'Stop'}, 2)])).settled).toBe(true)
    expect(facts(2, reduceHooks(copilot, [hook(1, {hook_event_name: 'Stop'}, 2)])).settled).toBe(false)
  })
})

describe('Copilot CLI 1.0.102, real files', () => {
  const REAL = fileURLToPath(new URL('../../fixtures/copilot/real-1.0.102', import.meta.url))
  const real: AdapterEnv = {env: {COPILOT_HOME: REAL}, home: '/home/nobody'}
  const events = (id: string): string => join(REAL, 'session-state', id, 'events.jsonl')
  const lines = (id: string): string[] => readFileSync(events(id), 'utf8').split('\n').filter(Boolean)
  const typeAt = (id: string, type: string, nth = 0): number =>
    lines(id)
      .map((l) => JSON.parse(l).type)
      .reduce<number[]>((a, t, i) => (t === type ? [...a, i] : a), [])[nth]!
  const upTo = (id: string, n: number) =>
    compose(copilot, id, feedJsonl(copilot, events(id), copilot.match(events(id), real)!, {limit: n}).contributions)

  it('autopilot: session.task_complete then assistant.turn_end settles the turn (the reply asked for the task_complete tool)', () => {
    const id = 'ed3ed6c4-de3e-4768-9726-60343960d2e8'
    const end = typeAt(id, 'assistant.turn_end')
    expect(typeAt(id, 'session.task_complete')).toBe(end - 1)
    expect(upTo(id, end - 1).settled).toBe(false) // the tool ran, task_complete not yet written
    expect(upTo(id, end + 1).settled).toBe(true) // turn_end after task_complete, no shutdown yet
  })

  it('a shell still running after 30 s is background work once the turn ends; its shell_completed notification starts a turn with no prompt', () => {
    const id = 'b72e863e-cc3b-4fa8-9a34-f7b35d843d46'
    const wake = typeAt(id, 'system.notification')
    const over = upTo(id, wake)
    expect(over).toMatchObject({backgroundWork: 1, settled: true, turnIndex: 1})
    const woken = upTo(id, wake + 1)
    expect(woken).toMatchObject({backgroundWork: 0, settled: false, turnIndex: 2})
    const after = facts0(real, id)
    expect(after).toMatchObject({backgroundWork: 0, messages: 5, settled: true, turnIndex: 2})
  })

  it('ask_user asks with `message`: the question is that text', () => {
    const id = '1ca81471-0630-455b-9d59-7142f0c558e1'
    const open = upTo(id, typeAt(id, 'tool.execution_start') + 1)
    expect(open.question).toMatchObject({text: 'Which colour should the button be?'})
    expect(facts0(real, id).question).toBeNull()
  })

  it('the legacy single-file layout history-session-state/<id>.json is read as settled history', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cast-copilot-legacy-'))
    temps.push(dir)
    mkdirSync(join(dir, 'history-session-state'))
    // Shape as public readers of the layout document it (no real file of it here: 1.0.102 no longer writes it).
    const body = {
      chatMessages: [
        {content: 'please add mcp servers', role: 'user'},
        {content: 'sure', role: 'assistant'},
        {content: 'x', role: 'tool'},
        {content: 'thanks', role: 'user'},
      ],
      sessionId: 'hhh',
      startTime: '2025-10-08T21:10:16.398Z',
      timeline: [],
    }
    writeFileSync(join(dir, 'history-session-state', 'hhh.json'), JSON.stringify(body, null, 2))
    const env: AdapterEnv = {env: {COPILOT_HOME: dir}, home: '/home/nobody'}
    expect(factsOf(copilot, env, 'hhh')).toMatchObject({
      createdAt: Date.parse('2025-10-08T21:10:16.398Z'),
      messages: 3,
      process: null,
      settled: true,
      title: 'please add mcp servers',
    })
  })
})

function facts0(env: AdapterEnv, id: string) {
  return factsOf(copilot, env, id)
}
