/**
 * The built CLI over a temporary HOME holding one session of each of Gemini CLI, Copilot CLI and
 * Cursor's agent, in their real layouts: `cast sessions --json` lists each with its title, model
 * and reason; hook payloads spooled by `bin/cast-hook` and a live `inuse.<pid>.lock` move them.
 */
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {chmodSync, copyFileSync, mkdirSync} from 'node:fs'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {HOOK_BIN, json, makeHome, runCast, type TempHome, writeFile} from '../../helpers/cli.js'
import {writeStore} from '../cursor/store-writer.js'
import {cwdBucket} from '../../../src/adapters/cursor/index.js'

const GEMINI = 'be11a000-0000-4000-8000-000000000001'
const COPILOT = 'c0711000-0000-4000-8000-000000000001'
const CURSOR = 'c5000000-0000-4000-8000-000000000001'

let h: TempHome
let sleeper: ChildProcess | null = null
beforeEach(() => {
  h = makeHome()
})
afterEach(() => {
  if (sleeper?.pid !== undefined && sleeper.exitCode === null) sleeper.kill('SIGKILL')
  sleeper = null
  h.cleanup()
})

const iso = (agoMs: number): string => new Date(Date.now() - agoMs).toISOString()
const lines = (records: readonly unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n'

function geminiSession(): void {
  const project = path.join(h.home, '.gemini', 'tmp', 'shop-api')
  writeFile(path.join(project, '.project_root'), '/src/shop-api')
  writeFile(
    path.join(project, 'chats', `session-2026-08-01T10-00-${GEMINI.slice(0, 8)}.jsonl`),
    lines([
      {lastUpdated: iso(120_000), projectHash: 'x', sessionId: GEMINI, startTime: iso(120_000)},
      {content: [{text: 'Add pagination to /orders'}], id: 'u1', timestamp: iso(110_000), type: 'user'},
      {content: 'Added ?page and ?limit to /orders.', id: 'g1', model: 'gemini-2.5-pro', timestamp: iso(100_000), type: 'gemini'},
      {$set: {lastUpdated: iso(100_000)}},
    ]),
  )
}

/** The Copilot session's folder (a real one: the process scan ties a copilot process there). */
const webDir = (): string => path.join(h.dir, 'web')

/** A process named `copilot` (a copy of sleep) running in the session's folder. */
function fakeCopilot(): ChildProcess {
  const bin = path.join(h.dir, 'bin', 'copilot')
  mkdirSync(path.dirname(bin), {recursive: true})
  mkdirSync(webDir(), {recursive: true})
  copyFileSync('/bin/sleep', bin)
  chmodSync(bin, 0o755)
  return spawn(bin, ['60'], {cwd: webDir(), stdio: 'ignore'})
}

function copilotSession(pid: number | null): void {
  // Written just after its process started (as Copilot writes it): times under a second old.
  const dir = path.join(h.home, '.copilot', 'session-state', COPILOT)
  const ev = (agoMs: number, type: string, data: Record<string, unknown>) => ({
    data,
    id: `${type}-${agoMs}`,
    parentId: null,
    timestamp: iso(agoMs),
    type,
  })
  writeFile(
    path.join(dir, 'events.jsonl'),
    lines([
      ev(900, 'session.start', {context: {cwd: webDir()}, copilotVersion: '1.0.63', sessionId: COPILOT, startTime: iso(900)}),
      ev(890, 'session.model_change', {newModel: 'gpt-5.4'}),
      ev(800, 'user.message', {content: 'Upgrade React to 19'}),
      ev(790, 'assistant.turn_start', {turnId: '1'}),
      ev(700, 'assistant.message', {content: 'Running the codemod.', messageId: 'm1', toolRequests: [{name: 'bash', toolCallId: 'c1'}]}),
      ev(690, 'tool.execution_start', {arguments: {command: 'npx codemod react/19'}, toolCallId: 'c1', toolName: 'bash'}),
    ]),
  )
  writeFile(
    path.join(dir, 'workspace.yaml'),
    `id: ${COPILOT}\ncwd: ${webDir()}\nname: React 19 upgrade\nuser_named: true\ncreated_at: ${iso(900)}\nupdated_at: ${iso(800)}\n`,
  )
  if (pid !== null) writeFile(path.join(dir, `inuse.${pid}.lock`), String(pid))
}

function cursorSession(): void {
  const dir = path.join(h.home, '.cursor', 'chats', cwdBucket('/src/cli'), CURSOR)
  mkdirSync(dir, {recursive: true})
  writeStore(path.join(dir, 'store.db'), {
    agentId: CURSOR,
    createdAt: Date.now() - 300_000,
    journal: 'WAL',
    messages: [
      {content: 'You are a coding agent.', role: 'system'},
      {content: [{text: '<user_info>linux</user_info>\n<user_query>Add a --verbose flag</user_query>', type: 'text'}], role: 'user'},
      {
        content: [
          {text: 'Editing cli.ts', type: 'text'},
          {args: {}, toolCallId: 't1', toolName: 'edit_file', type: 'tool-call'},
        ],
        role: 'assistant',
      },
    ],
    model: 'claude-4.5-sonnet',
    name: 'New Agent',
    workspace: 'file:///src/cli',
  })
  writeFile(
    path.join(dir, 'meta.json'),
    JSON.stringify({
      createdAtMs: Date.now() - 300_000,
      cwd: '/src/cli',
      hasConversation: true,
      isSubagent: false,
      schemaVersion: 1,
      title: 'Verbose flag',
      updatedAtMs: Date.now() - 50_000,
    }),
  )
}

function hook(agent: string, payload: Record<string, unknown>): void {
  const r = spawnSync(HOOK_BIN, [agent], {env: h.env, input: JSON.stringify(payload)})
  expect(r.status).toBe(0)
}

const byAgent = (r: any, agent: string): any => r.sessions.find((s: any) => s.agent === agent)
const row = (s: any) => ({bucket: s.bucket, cwd: s.cwd, model: s.model, reason: s.reason, state: s.state, title: s.title})

describe('Gemini CLI, Copilot CLI and Cursor agent sessions in one home', () => {
  it('each is listed with its title, model and reason, and moves with hooks and its process', async () => {
    sleeper = fakeCopilot()
    await new Promise((r) => setTimeout(r, 200))
    geminiSession()
    copilotSession(sleeper.pid ?? null)
    cursorSession()

    const first = json(await runCast(['sessions', '--json'], {env: h.env}))

    expect(row(byAgent(first, 'gemini'))).toEqual({
      bucket: 'needs_input',
      cwd: '/src/shop-api',
      model: 'gemini-2.5-pro',
      reason: 'settled',
      state: 'needs_input',
      title: 'Add pagination to /orders',
    })
    expect(row(byAgent(first, 'copilot'))).toEqual({
      bucket: 'working',
      cwd: webDir(),
      model: 'gpt-5.4',
      reason: 'turn_pending',
      state: 'working',
      title: 'React 19 upgrade',
    })
    expect(byAgent(first, 'copilot')).toMatchObject({live: true, pid: sleeper.pid})
    expect(row(byAgent(first, 'cursor'))).toEqual({
      bucket: 'working',
      cwd: '/src/cli',
      model: 'claude-4.5-sonnet',
      reason: 'turn_pending',
      state: 'working',
      title: 'Verbose flag',
    })

    // Gemini asks for a permission, Cursor's turn ends, Copilot's process dies mid-turn.
    hook('gemini', {
      cwd: '/src/shop-api',
      details: {command: 'rm -rf build', rootCommand: 'rm', type: 'exec'},
      hook_event_name: 'Notification',
      message: 'Tool run_shell_command requires confirmation',
      notification_type: 'ToolPermission',
      session_id: GEMINI,
    })
    hook('cursor', {
      conversation_id: CURSOR,
      generation_id: 'g1',
      hook_event_name: 'stop',
      loop_count: 0,
      status: 'completed',
      workspace_roots: ['/src/cli'],
    })
    sleeper.kill('SIGKILL')
    await new Promise((resolve) => sleeper?.once('exit', resolve))

    const second = json(await runCast(['sessions', '--json'], {env: h.env}))

    expect(row(byAgent(second, 'gemini'))).toMatchObject({bucket: 'questions', reason: 'approval', state: 'needs_input'})
    expect(row(byAgent(second, 'cursor'))).toMatchObject({bucket: 'needs_input', reason: 'settled', state: 'needs_input'})
    expect(byAgent(second, 'copilot')).toMatchObject({live: false, reason: 'dead', state: 'needs_input'})

    const human = await runCast(['sessions'], {env: h.env})
    expect(human.stdout).toMatch(/QUESTIONS \(1\)[\s\S]*Add pagination to \/orders[\s\S]*approve shell: rm -rf build/)
  })
})
