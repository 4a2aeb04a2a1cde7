import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {claudeLines, claudeTranscriptPath, json, makeHome, runCast, type TempHome, writeFile} from '../helpers/cli.js'

const SID = 'aaaaaaaa-1111-4222-8333-444444444444'
const OTHER = 'aaaabbbb-1111-4222-8333-444444444444'
let h: TempHome
beforeEach(() => {
  h = makeHome()
})
afterEach(() => h.cleanup())

const session = (sid: string, opts: {prompt: string; question?: string; settled?: boolean; agoMs?: number}): void => {
  writeFile(
    claudeTranscriptPath(h.home, '/src/app', sid),
    claudeLines({at: new Date(Date.now() - (opts.agoMs ?? 60_000)), cwd: '/src/app', sessionId: sid, ...opts}),
  )
}

describe('cast sessions', () => {
  it('on a machine with no agent sessions prints an empty inbox, where it looked, and suggests the demo', async () => {
    const r = await runCast(['sessions'], {env: h.env})

    expect(r.code).toBe(0)
    expect(r.stdout).toContain('needs input 0 · done 0 · working 0 · dormant 0 · idle 0')
    expect(r.stdout).toContain(path.join(h.home, '.claude', 'projects'))
    expect(r.stdout).toContain('cast demo')
  })

  it('puts each Claude Code session in its section with its reason, and --json matches DESIGN §6.1', async () => {
    session(SID, {prompt: 'Fix the parser'})
    session(OTHER, {prompt: 'Pick a database', question: 'Postgres or SQLite?'})

    const human = await runCast(['sessions'], {env: h.env})
    const r = json(await runCast(['sessions', '--json'], {env: h.env}))

    expect(human.stdout).toMatch(
      /QUESTIONS \(1\)[\s\S]*needs input:question[\s\S]*Pick a database[\s\S]*NEEDS INPUT \(1\)[\s\S]*needs input:settled[\s\S]*Fix the parser/,
    )
    expect(r.me).toBe('me@example.com')
    expect(r.counts).toMatchObject({needs_input: 2, questions: 1})
    expect(r.sessions.map((s: any) => [s.title, s.state, s.reason, s.bucket])).toEqual([
      ['Pick a database', 'needs_input', 'question', 'questions'],
      ['Fix the parser', 'needs_input', 'settled', 'needs_input'],
    ])
    expect(Object.keys(r.sessions[0]).sort()).toEqual(
      [
        'agent',
        'ask',
        'background_work',
        'bucket',
        'changed_files',
        'children',
        'created_at',
        'cwd',
        'decision',
        'device',
        'filing',
        'id',
        'labels',
        'last_activity_at',
        'live',
        'messages',
        'model',
        'native_id',
        'owners',
        'pane',
        'parent_id',
        'park',
        'pid',
        'pinned',
        'quiet',
        'reason',
        'rule',
        'runner',
        'short_id',
        'snoozed_until',
        'state',
        'state_line',
        'title',
        'usage',
        'waiting_since',
      ].sort(),
    )
    expect(r.sessions[0]).toMatchObject({agent: 'claude_code', cwd: '/src/app', native_id: OTHER, rule: 4})
    expect(r.sessions[0].id).toHaveLength(26)
    expect(r.sessions[0].short_id).toBe(r.sessions[0].id.slice(0, 7))
  })

  it('filters by state and agent, and rejects a bad value with exit 2', async () => {
    session(SID, {prompt: 'Fix the parser', settled: false, agoMs: 1000})
    session(OTHER, {prompt: 'Pick a database', question: 'Postgres or SQLite?'})

    const working = json(await runCast(['sessions', '--json', '--state', 'working'], {env: h.env}))
    const codex = json(await runCast(['sessions', '--json', '--agent', 'codex'], {env: h.env}))
    const bad = await runCast(['sessions', '--state', 'busy'], {env: h.env})

    expect(working.sessions.map((s: any) => s.native_id)).toEqual([SID])
    expect(codex.sessions).toEqual([])
    expect(bad.code).toBe(2)
  })

  it('honours CAST_NOW for every time rule', async () => {
    session(SID, {prompt: 'Long job', settled: false, agoMs: 60_000})
    const later = new Date(Date.now() + 20 * 60_000).toISOString()

    const now = json(await runCast(['sessions', '--json'], {env: h.env}))
    const then = json(await runCast(['sessions', '--json'], {env: {...h.env, CAST_NOW: later}}))

    expect(now.sessions[0]).toMatchObject({reason: 'turn_pending', state: 'working'})
    expect(then.sessions[0]).toMatchObject({reason: 'unresponsive', state: 'needs_input'})
    expect((await runCast(['sessions'], {env: {...h.env, CAST_NOW: 'yesterday-ish'}})).code).toBe(2)
  })

  it('a corrupt transcript never stops the listing and is counted in explain', async () => {
    session(SID, {prompt: 'Fix the parser'})
    writeFile(
      claudeTranscriptPath(h.home, '/src/app', OTHER),
      '\u0000\u0001garbage\n{"type":\n' + claudeLines({at: new Date(), cwd: '/src/app', prompt: 'Still here', sessionId: OTHER}),
    )

    const r = json(await runCast(['sessions', '--json'], {env: h.env}))
    const e = json(await runCast(['explain', OTHER.slice(0, 8), '--json'], {env: h.env}))

    expect(r.sessions).toHaveLength(2)
    expect(e.files[0].parse_errors).toBe(2)
  })

  it('refuses a newer database schema with a clear message and changes nothing', async () => {
    await runCast(['sessions'], {env: h.env})
    const db = new Database(path.join(h.castHome, 'cast.db'))
    db.pragma('user_version = 999')
    db.close()

    const r = await runCast(['sessions'], {env: h.env})

    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/newer cast/)
    const after = new Database(path.join(h.castHome, 'cast.db'))
    expect(after.pragma('user_version', {simple: true})).toBe(999)
    after.close()
  })
})

describe('resolving a session', () => {
  it('unknown → exit 3 with nearest matches; ambiguous prefix → exit 4 listing them; unique prefix works', async () => {
    session(SID, {prompt: 'One'})
    session(OTHER, {prompt: 'Two'})

    const unknown = await runCast(['explain', 'zzzzzzzz'], {env: h.env})
    const ambiguous = await runCast(['explain', 'aaaa'], {env: h.env})
    const ambiguousJson = await runCast(['explain', 'aaaa', '--json'], {env: h.env})
    const unique = await runCast(['explain', 'aaaab'], {env: h.env})

    expect(unknown.code).toBe(3)
    expect(unknown.stderr).toMatch(/No session matches "zzzzzzzz"/)
    expect(ambiguous.code).toBe(4)
    expect(ambiguous.stderr).toMatch(/matches 2 sessions/)
    expect(ambiguousJson.code).toBe(4)
    expect(json(ambiguousJson).error.exit_code).toBe(4)
    expect(unique.code).toBe(0)
    expect(unique.stdout).toContain('Two')
  })
})

describe('cast explain', () => {
  it('shows each fact with its source, the rule chain, and the next check', async () => {
    session(SID, {prompt: 'Pick a database', question: 'Postgres or SQLite?'})

    const e = json(await runCast(['explain', SID, '--json'], {env: h.env}))
    const human = await runCast(['explain', SID], {env: h.env})

    expect(e).toMatchObject({bucket: 'questions', reason: 'question', rule: 4, state: 'needs_input'})
    const q = e.facts.find((f: any) => f.fact === 'question')
    expect(q.value).toBe('Postgres or SQLite?')
    expect(q.source.kind).toBe('transcript')
    expect(q.source.ref).toBe(claudeTranscriptPath(h.home, '/src/app', SID))
    expect(typeof q.source.offset).toBe('number')
    expect(e.chain.filter((c: any) => c.matched).map((c: any) => c.rule)).toEqual([4])
    expect(human.stdout).toMatch(/→ 4\./)
  })
})

describe('cast state', () => {
  it('declares done for the current turn; a new turn makes the declaration lapse', async () => {
    session(SID, {prompt: 'Ship it'})
    const env = {...h.env, CAST_SESSION: SID}

    const declared = json(await runCast(['state', '--status', 'done', 'Shipped: tests green\nPR #12 open', '--json'], {env}))
    const show = json(await runCast(['state', 'show', '--json'], {env}))
    fs.appendFileSync(
      claudeTranscriptPath(h.home, '/src/app', SID),
      JSON.stringify({
        cwd: '/src/app',
        message: {content: 'One more thing', role: 'user'},
        sessionId: SID,
        timestamp: new Date().toISOString(),
        type: 'user',
        uuid: 'u9',
      }) +
        '\n' +
        JSON.stringify({
          cwd: '/src/app',
          message: {content: [{text: 'Done too.', type: 'text'}], id: 'msg_9', role: 'assistant'},
          sessionId: SID,
          timestamp: new Date().toISOString(),
          type: 'assistant',
          uuid: 'a9',
        }) +
        '\n',
    )
    const after = json(await runCast(['sessions', '--json'], {env: h.env}))

    expect(declared.session).toMatchObject({bucket: 'done', reason: 'declared_done', state: 'done'})
    expect(show.state_line).toMatchObject({messages_since: 0, status: 'done', text: 'Shipped: tests green\nPR #12 open'})
    expect(after.sessions[0]).toMatchObject({reason: 'settled', state: 'needs_input'})
    expect(after.sessions[0].state_line.messages_since).toBe(2)
  })

  it('dormant needs text naming the wake; unknown session exits 3 with how to pass --session', async () => {
    session(SID, {prompt: 'Wait for CI'})

    const noText = await runCast(['state', '--status', 'dormant', '--session', SID], {env: h.env})
    const nowhere = await runCast(['state', 'hello'], {env: h.env})

    expect(noText.code).toBe(2)
    expect(noText.stderr).toMatch(/names the wake/)
    expect(nowhere.code).toBe(3)
    expect(nowhere.stderr).toMatch(/--session/)
  })
})

describe('cast demo', () => {
  it('shows every section over the bundled example', async () => {
    const r = await runCast(['demo', '--no-keep'], {env: h.env})

    expect(r.code).toBe(0)
    for (const section of ['QUESTIONS', 'PINNED', 'NEW', 'NEEDS INPUT', 'DONE', 'WORKING', 'DORMANT', 'SNOOZED', 'STASHED', 'KILLED']) {
      expect(r.stdout).toContain(`${section} (`)
    }

    expect(r.stdout).toMatch(/needs input:approval[\s\S]*live pid/)
    for (const agent of ['claude_code', 'codex', 'pi', 'gemini', 'copilot', 'cursor', 'opencode']) expect(r.stdout).toContain(` ${agent}`)
    expect(fs.existsSync(path.join(h.castHome, 'cast.db'))).toBe(false)
  })

  it('--json lists sessions of every agent, each in its section with its title, model and reason', async () => {
    const r = await runCast(['demo', '--json', '--no-keep'], {env: h.env})
    const {sessions} = json<{sessions: {agent: string; bucket: string; model: string | null; reason: string; title: string}[]}>(r)
    const of = (agent: string) =>
      sessions.filter((s) => s.agent === agent).map(({bucket, model, reason, title}) => ({bucket, model, reason, title}))

    expect(r.code).toBe(0)
    expect(new Set(sessions.map((s) => s.agent))).toEqual(
      new Set(['claude_code', 'codex', 'pi', 'gemini', 'copilot', 'cursor', 'opencode']),
    )
    expect(new Set(sessions.map((s) => s.bucket))).toEqual(
      new Set(['questions', 'pinned', 'new', 'needs_input', 'done', 'working', 'dormant', 'snoozed', 'stashed', 'killed']),
    )
    expect(of('codex')).toEqual([
      {bucket: 'needs_input', model: 'gpt-5.5-codex', reason: 'error', title: 'Bump the Postgres driver to v9 and run the migrations'},
      {bucket: 'needs_input', model: 'gpt-5.5-codex', reason: 'settled', title: 'Backup script races'},
    ])
    expect(of('pi')).toEqual([{bucket: 'working', model: 'claude-opus-4-5', reason: 'turn_pending', title: 'Cold start under 150 ms'}])
    expect(of('gemini')).toEqual([
      {bucket: 'questions', model: 'gemini-2.5-pro', reason: 'question', title: 'Restructure the docs sidebar by topic'},
    ])
    expect(of('copilot')).toEqual([
      {bucket: 'questions', model: 'claude-sonnet-4.5', reason: 'approval', title: 'Publish the design tokens package'},
    ])
    expect(of('cursor')).toEqual([
      {bucket: 'done', model: 'claude-4.5-sonnet', reason: 'declared_done', title: 'Dark mode toggle on the settings page'},
    ])
    expect(of('opencode')).toEqual([
      {bucket: 'needs_input', model: 'claude-sonnet-4-5', reason: 'settled', title: 'Terraform plan for the logs bucket'},
    ])
  })
})
