import {mkdtempSync, rmSync, writeFileSync, mkdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'

import {chatLogParser, gemini, parseProjectsJson, projectHash, resetProjectRoots, WINDOW} from '../../../src/adapters/gemini/index.js'
import type {AdapterEnv, HookEvent} from '../../../src/core/ingest/adapter.js'
import {compose, discover, factsOf, feedJsonl, readAll, readOne, reduceHooks} from './harness.js'

const HOME = fileURLToPath(new URL('../../fixtures/gemini', import.meta.url))
const ctx: AdapterEnv = {env: {GEMINI_CLI_HOME: HOME}, home: '/home/nobody'}
const APP = join(HOME, '.gemini', 'tmp', 'my-app', 'chats')
const LEGACY = join(HOME, '.gemini', 'tmp', projectHash('/tmp/legacy-proj'), 'chats')
const base = Date.parse('2026-08-01T10:00:00.000Z')
const sec = (s: number): number => base + s * 1000
const sid = (k: number): string => `9e0000${String(k).padStart(2, '0')}-0000-4000-8000-00000000aaaa`
const file = (k: number, ext = 'jsonl'): string => `session-2026-08-01T10-00-${sid(k).slice(0, 8)}.${ext}`
const facts = (k: number, extra: Parameters<typeof factsOf>[3] = []) => factsOf(gemini, ctx, sid(k), extra)

function feed(path: string, opts: Parameters<typeof feedJsonl>[3] = {}) {
  const match = gemini.match(path, ctx)
  if (match === null) throw new Error(`no match: ${path}`)
  return feedJsonl(gemini, path, match, opts)
}

const hook = (seconds: number, name: string, extra: Record<string, unknown> = {}, k = 1): HookEvent => ({
  agent: 'gemini',
  at: sec(seconds),
  payload: {
    cwd: '/tmp/my-app',
    hook_event_name: name,
    session_id: sid(k),
    timestamp: new Date(sec(seconds)).toISOString(),
    transcript_path: join(APP, file(k)),
    ...extra,
  },
})

afterEach(() => resetProjectRoots())

describe('Gemini CLI paths', () => {
  it('reads $GEMINI_CLI_HOME/.gemini/tmp, else ~/.gemini/tmp', () => {
    expect(gemini.roots(ctx)).toEqual([join(HOME, '.gemini', 'tmp')])
    expect(gemini.roots({env: {}, home: '/home/u'})).toEqual(['/home/u/.gemini/tmp'])
  })

  it('matches main chats (log and JSON) and subagent chats, nothing else', () => {
    const found = discover(gemini, ctx).map((d) => ({file: d.path.slice(HOME.length + 1), kind: d.match.kind, role: d.match.role}))

    expect(found).toContainEqual({file: `.gemini/tmp/my-app/chats/${file(1)}`, kind: 'jsonl', role: 'chat'})
    expect(found).toContainEqual({file: `.gemini/tmp/my-app/chats/${sid(6)}/${sid(7)}.jsonl`, kind: 'jsonl', role: 'subagent'})
    expect(found).toContainEqual({
      file: `.gemini/tmp/${projectHash('/tmp/legacy-proj')}/chats/${file(10, 'json')}`,
      kind: 'whole',
      role: 'chat',
    })
    expect(found.some((f) => /logs\.json|checkpoint|tool-outputs|project_root|projects\.json/.test(f.file))).toBe(false)
    expect(found).toHaveLength(13)
  })

  it('a subagent file names its parent (the folder) and itself', () => {
    const match = gemini.match(join(APP, sid(6), `${sid(7)}.jsonl`), ctx)

    expect(match).toMatchObject({kind: 'jsonl', nativeId: sid(7), parentNativeId: sid(6)})
  })

  it('the cwd comes from the slug folder marker, or from projects.json for a hash folder', () => {
    expect(gemini.match(join(APP, file(1)), ctx)).toMatchObject({cwd: '/tmp/my-app', project: 'my-app'})
    expect(gemini.match(join(LEGACY, file(10, 'json')), ctx)).toMatchObject({cwd: '/tmp/legacy-proj'})
  })

  it('projects.json maps slugs and path hashes to paths; garbage maps nothing', () => {
    const map = parseProjectsJson(JSON.stringify({projects: {'/a/b': 'b'}}))

    expect(map.get('b')).toBe('/a/b')
    expect(map.get(projectHash('/a/b'))).toBe('/a/b')
    expect(parseProjectsJson('{"projects": ').size).toBe(0)
  })
})

describe('Gemini CLI chat log (≥ 0.39)', () => {
  it('settled: the summary is the title, a re-appended reply counts once, cwd and model', () => {
    const f = facts(1)

    expect(f).toMatchObject({
      createdAt: base,
      cwd: '/tmp/my-app',
      lastActivityAt: sec(5),
      lastAssistantText: 'Added GET /health returning 200.',
      messages: 2,
      model: 'gemini-2.5-pro',
      settled: true,
      title: 'Health check endpoint',
      turnIndex: 1,
      turnStartedAt: sec(1),
    })
    expect(f.sources['title']).toMatchObject({kind: 'transcript', ref: join(APP, file(1))})
    expect(f.sources['cwd']).toEqual({kind: 'project', ref: join(HOME, '.gemini', 'tmp', 'my-app')})
    expect(f.sources['turnIndex']).toMatchObject({kind: 'transcript', offset: expect.any(Number)})
  })

  it('working: a reply carrying finished tool calls means the model goes on', () => {
    expect(facts(2)).toMatchObject({messages: 2, settled: false, title: 'Run the tests and fix what fails'})
  })

  it('an error notice after the prompt is an error block that settles the turn', () => {
    const f = facts(3)

    expect(f.error).toMatchObject({at: sec(2), source: {kind: 'transcript'}})
    expect(f.error?.text).toContain('exhausted your capacity')
    expect(f.settled).toBe(true)
    expect(f.messages).toBe(1)
  })

  it('$rewindTo drops that message and everything after it', () => {
    const f = facts(4)

    expect(f).toMatchObject({lastAssistantText: 'Renamed loadConfig to readConfig.', messages: 2, settled: true, turnIndex: 1})
  })

  it('compaction: a $set.messages checkpoint replaces the list; the notice is noted', () => {
    const f = facts(5)

    expect(f).toMatchObject({
      lastAssistantText: 'Added bench/lexer.ts.',
      messages: 4,
      settled: true,
      title: 'Refactor the parser',
      turnIndex: 2,
    })
    expect(f.sources['compaction']).toMatchObject({kind: 'transcript'})
  })

  it('a subagent chat is a child of its parent, in the same project', () => {
    const parent = facts(6)
    const child = facts(7)

    expect(parent).toMatchObject({messages: 2, settled: false})
    expect(child).toMatchObject({
      cwd: '/tmp/my-app',
      messages: 2,
      model: 'gemini-2.5-flash',
      parentNativeId: sid(6),
      settled: true,
      title: 'Find why test/retry.test.ts is flaky',
    })
  })

  it('a cancelled request ends the turn', () => {
    expect(facts(8)).toMatchObject({messages: 1, settled: true})
  })

  it('a malformed line is rejected and counted; a partial last line waits for its newline', () => {
    const fed = feed(join(APP, file(9)))

    expect(fed.rejected).toBe(1)
    expect(fed.contributions[0]?.facts).toMatchObject({messages: 2, parseErrors: 1, settled: true})
  })

  it('feeding with the state round-tripped through JSON gives the same facts', () => {
    for (const k of [1, 2, 4, 5, 9]) {
      expect(feed(join(APP, file(k)), {roundTrip: true}).contributions).toEqual(feed(join(APP, file(k))).contributions)
    }
  })

  it('incremental: a prompt appended later starts a new turn', () => {
    const fed = feed(join(APP, file(1)), {
      append: [
        JSON.stringify({content: [{text: 'Also add /ready'}], id: 'later', timestamp: new Date(sec(90)).toISOString(), type: 'user'}),
      ],
    })

    expect(fed.contributions[0]?.facts).toMatchObject({messages: 3, settled: false, turnIndex: 2, turnStartedAt: sec(90)})
  })

  it('before its metadata line, a main chat contributes nothing (its file name holds only 8 characters of the id)', () => {
    expect(feed(join(APP, file(1)), {limit: 0}).contributions).toEqual([])
  })

  it('keeps its state bounded: a long chat keeps a window and counts the rest', () => {
    const lines = [JSON.stringify({projectHash: 'x', sessionId: sid(50), startTime: new Date(base).toISOString()})]
    const n = 1000
    for (let i = 0; i < n; i++) {
      const t = new Date(sec(i)).toISOString()
      lines.push(JSON.stringify({content: [{text: `prompt ${i}`}], id: `u${i}`, timestamp: t, type: 'user'}))
      lines.push(
        JSON.stringify({content: `reply ${i} ${'x'.repeat(200)}`, id: `g${i}`, model: 'gemini-2.5-pro', timestamp: t, type: 'gemini'}),
      )
    }

    lines.push(JSON.stringify({$rewindTo: `u${n - 1}`}))
    const fed = feed(join(APP, file(50)), {bytes: Buffer.from(lines.join('\n') + '\n'), roundTrip: false})
    const state = fed.state as {win: unknown[]}

    expect(state.win.length).toBeLessThanOrEqual(WINDOW)
    expect(JSON.stringify(fed.state).length).toBeLessThan(30_000)
    expect(fed.contributions[0]?.facts).toMatchObject({messages: 2 * n - 2, settled: true, title: 'prompt 0', turnIndex: n - 1})

    // A rewind to a message older than the window drops the window and keeps what was counted.
    const old = feedJsonl(gemini, join(APP, file(50)), gemini.match(join(APP, file(50)), ctx)!, {
      bytes: Buffer.from([...lines.slice(0, -1), JSON.stringify({$rewindTo: 'u10'})].join('\n') + '\n'),
    })
    expect(old.contributions[0]?.facts.messages).toBe(2 * n - WINDOW)
  })
})

describe('Gemini CLI legacy JSON (≤ 0.38)', () => {
  it('reads a conversation record rewritten whole; the cwd of a hash folder comes from projects.json', () => {
    expect(facts(10)).toMatchObject({
      cwd: '/tmp/legacy-proj',
      lastAssistantText: 'It starts the HTTP server.',
      messages: 2,
      model: 'gemini-2.5-flash',
      settled: true,
      title: 'What does main.go do?',
    })
  })

  it('a chat migrated on resume: the newer .jsonl wins over the .json left beside it', () => {
    expect(facts(11)).toMatchObject({messages: 3, settled: false, title: 'List the endpoints', turnIndex: 2, turnStartedAt: sec(60)})
  })

  it('a JSON file caught mid-rewrite fails to read (counted by the engine) and crashes nothing', () => {
    const path = join(LEGACY, file(12, 'json'))
    const r = readOne(gemini, path, gemini.match(path, ctx)!)

    expect(r).toEqual({contributions: [], failed: [path]})
    expect(readAll(gemini, ctx).failed).toEqual([path])
  })
})

describe('Gemini CLI hooks', () => {
  const hookFacts = (events: HookEvent[]) => reduceHooks(gemini, events)[0]

  it('belong to their session_id; payloads without one are dropped', () => {
    expect(gemini.hooks?.sessionOf(hook(0, 'AfterAgent'))).toBe(sid(1))
    expect(gemini.hooks?.sessionOf({agent: 'gemini', at: 0, payload: {hook_event_name: 'AfterAgent'}})).toBeNull()
  })

  it('BeforeAgent starts a turn, AfterAgent ends it with the reply text', () => {
    expect(hookFacts([hook(0, 'BeforeAgent', {prompt: 'go'})])?.facts).toMatchObject({settled: false})
    expect(hookFacts([hook(0, 'BeforeAgent'), hook(5, 'AfterAgent', {prompt_response: 'All done.'})])?.facts).toMatchObject({
      lastAssistantText: 'All done.',
      settled: true,
      sources: {settled: {kind: 'hook', ref: 'AfterAgent'}},
    })
  })

  it('Notification ToolPermission opens an approval naming the tool; the next tool event closes it', () => {
    const open = hookFacts([
      hook(0, 'BeforeAgent'),
      hook(2, 'BeforeTool', {tool_name: 'run_shell_command'}),
      hook(3, 'Notification', {
        details: {rootCommand: 'rm', type: 'exec'},
        message: 'Tool run_shell_command requires confirmation',
        notification_type: 'ToolPermission',
      }),
    ])
    const closed = hookFacts([
      hook(3, 'Notification', {details: {toolName: 'write_file'}, notification_type: 'ToolPermission'}),
      hook(9, 'AfterTool', {tool_name: 'write_file'}),
    ])

    expect(open?.facts.approval).toEqual({at: sec(3), source: {kind: 'hook', ref: 'Notification'}, text: 'shell: rm'})
    expect(closed?.facts.approval).toBeNull()
  })

  it('the approval names what it asks about; an ask_user dialog is a question', () => {
    const text = (details: Record<string, unknown>) =>
      hookFacts([hook(1, 'Notification', {details, message: 'm', notification_type: 'ToolPermission'})])?.facts

    expect(text({command: 'git push --force', rootCommand: 'git', title: 'Confirm Shell Command', type: 'exec'})?.approval?.text).toBe(
      'shell: git push --force',
    )
    expect(text({fileName: 'src/app.ts', filePath: '/tmp/my-app/src/app.ts', type: 'edit'})?.approval?.text).toBe('edit: src/app.ts')
    expect(text({serverName: 'github', toolName: 'create_issue', type: 'mcp'})?.approval?.text).toBe('github.create_issue')
    expect(text({questions: [{question: 'Which database?'}], type: 'ask_user'})).toMatchObject({
      approval: null,
      question: {text: 'Which database?'},
    })
  })

  it('SessionEnd settles and records the exit; SessionStart is at the prompt', () => {
    expect(hookFacts([hook(0, 'BeforeAgent'), hook(4, 'SessionEnd', {reason: 'exit'})])).toMatchObject({
      extra: {exitedAt: sec(4)},
      facts: {settled: true},
    })
    expect(hookFacts([hook(0, 'SessionStart', {source: 'startup'})])?.facts.settled).toBe(true)
  })

  it('composed: a permission prompt over a file whose last reply looks final', () => {
    // The file's reply at 5 s looks settled; the tool it announced then asks for permission.
    const f = facts(
      1,
      reduceHooks(gemini, [
        hook(6, 'BeforeTool', {tool_name: 'run_shell_command'}),
        hook(7, 'Notification', {details: {toolName: 'run_shell_command'}, notification_type: 'ToolPermission'}),
      ]),
    )

    expect(f).toMatchObject({approval: {text: 'run_shell_command'}, lastActivityAt: sec(7), settled: false})
  })

  it('composed: a hook older than the file loses to it; a newer AfterAgent wins', () => {
    const older = facts(11, reduceHooks(gemini, [hook(30, 'AfterAgent', {prompt_response: 'old'}, 11)]))
    const newer = facts(2, reduceHooks(gemini, [hook(20, 'AfterAgent', {prompt_response: 'Fixed 2 tests.'}, 2)]))

    expect(older.settled).toBe(false)
    expect(newer).toMatchObject({lastAssistantText: 'Fixed 2 tests.', settled: true, sources: {settled: {ref: 'AfterAgent'}}})
  })

  it('composed: an approval is stale once the file shows a reply made after it', () => {
    const f = facts(
      2,
      reduceHooks(gemini, [hook(1.5, 'Notification', {details: {toolName: 'run_shell_command'}, notification_type: 'ToolPermission'}, 2)]),
    )

    expect(f.approval).toBeNull()
  })

  it('composed: a new prompt clears an error notice', () => {
    const f = facts(3, reduceHooks(gemini, [hook(30, 'BeforeAgent', {}, 3)]))

    expect(f).toMatchObject({error: null, settled: false})
  })
})

describe('Gemini CLI project path cache', () => {
  it('a project folder with no marker and no registry has no cwd until one appears', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cast-gemini-'))
    try {
      const env: AdapterEnv = {env: {}, home: dir}
      const chat = join(dir, '.gemini', 'tmp', 'fresh', 'chats', file(1))
      mkdirSync(join(dir, '.gemini', 'tmp', 'fresh', 'chats'), {recursive: true})
      writeFileSync(chat, '')

      expect(gemini.match(chat, env)).toMatchObject({cwd: null})
      writeFileSync(join(dir, '.gemini', 'tmp', 'fresh', '.project_root'), '/srv/fresh\n')
      resetProjectRoots()
      expect(gemini.match(chat, env)).toMatchObject({cwd: '/srv/fresh'})
      expect(compose(gemini, 'x', [])).toMatchObject({messages: 0})
      expect(
        chatLogParser.contributions(chatLogParser.init(chat, {kind: 'jsonl', nativeId: 'x'}), chat, {kind: 'jsonl', nativeId: 'x'}),
      ).toEqual([])
    } finally {
      rmSync(dir, {force: true, recursive: true})
    }
  })
})
