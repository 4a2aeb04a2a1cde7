/**
 * A fixture agent for test/adapters/registry-fixture.test.ts: what adding an agent takes, as a
 * test. A read-only agent with hooks, in one folder: `~/.fixture-agent/sessions/<id>.jsonl`
 * (one JSON object a line: prompt, reply, end), a hook reducer whose `Ask` event opens an
 * approval, an install spec, screen patterns, a session variable. Registered with one line:
 * `createRegistry([...MODULES, fixtureAgent])`.
 */
import path from 'node:path'

import type {Contribution, HookReducer, JsonlParser} from '../../../src/core/ingest/adapter.js'
import type {AgentModule, HookInstallSpec} from '../../../src/adapters/module.js'
import type {SessionFacts} from '../../../src/core/model/types.js'

const ID = 'fixture_agent'

interface FixtureState {
  cwd: string | null
  title: string | null
  createdAt: number | null
  lastAt: number | null
  messages: number
  turns: number
  turnStartedAt: number | null
  settled: boolean
  lastReply: string | null
}

const parser: JsonlParser<FixtureState> = {
  contributions(s, file, match): Contribution[] {
    const facts: Partial<SessionFacts> = {
      createdAt: s.createdAt,
      cwd: s.cwd,
      lastActivityAt: s.lastAt,
      lastAssistantText: s.lastReply,
      messages: s.messages,
      settled: s.settled,
      sources: {settled: {kind: 'transcript', ref: file}},
      title: s.title,
      turnIndex: s.turns,
      turnStartedAt: s.turnStartedAt,
    }
    return [{facts, nativeId: match.nativeId}]
  },
  init: () => ({
    createdAt: null,
    cwd: null,
    lastAt: null,
    lastReply: null,
    messages: 0,
    settled: false,
    title: null,
    turns: 0,
    turnStartedAt: null,
  }),
  line(s, rec) {
    // The engine parsed the line once (a malformed one never gets here).
    const o = rec as {type?: string; at?: string; cwd?: string; text?: string}
    if (typeof o.type !== 'string') return false

    const at = o.at ? Date.parse(o.at) : null
    if (at !== null) {
      s.createdAt ??= at
      s.lastAt = at
    }

    if (o.type === 'prompt') {
      s.cwd = o.cwd ?? s.cwd
      s.title ??= o.text ?? null
      s.messages++
      s.turns++
      s.turnStartedAt = at
      s.settled = false
    } else if (o.type === 'reply') {
      s.messages++
      s.lastReply = o.text ?? null
    } else if (o.type === 'end') {
      s.settled = true
    }

    return true
  },
}

/** Hooks: `{"session": "<id>", "event": "Ask", "tool": "Bash"}` opens an approval; `Answer` closes it. */
const hooks: HookReducer<Record<string, {tool: string; at: number} | null>> = {
  contribution(state, nativeId) {
    if (!(nativeId in state)) return null
    const open = state[nativeId]
    return {
      facts: {
        approval: open ? {at: open.at, source: {kind: 'hook', ref: 'Ask'}, text: open.tool} : null,
        settled: open ? false : undefined,
      },
      nativeId,
      priority: 20,
    }
  },
  init: () => ({}),
  reduce(state, e) {
    const session = String(e.payload['session'])
    if (e.payload['event'] === 'Ask') return {...state, [session]: {at: e.at, tool: String(e.payload['tool'] ?? 'a tool')}}
    if (e.payload['event'] === 'Answer') return {...state, [session]: null}
    return state
  },
  sessionOf: (e) => (typeof e.payload['session'] === 'string' ? e.payload['session'] : null),
}

export const fixtureHookSpec: HookInstallSpec = {
  agent: ID,
  aliases: ['fixture'],
  commandKey: 'command',
  events: [{event: 'Ask'}, {event: 'Answer'}],
  handler: (command) => ({command}),
  hooksOnly: true,
  label: 'Fixture Agent',
  layout: 'flat',
  name: 'fixture-agent',
  notes: [],
  required: {version: 1},
  settingsPath: (ctx) => path.join(ctx.env['FIXTURE_AGENT_HOME'] ?? path.join(ctx.home, '.fixture-agent'), 'hooks.json'),
  where: '~/.fixture-agent/hooks.json',
}

export const fixtureAgent: AgentModule = {
  env: ['FIXTURE_AGENT_HOME'],
  hooks: {reducer: hooks, spec: fixtureHookSpec},
  id: ID,
  instructionsFile: 'FIXTURE.md',
  names: {aliases: ['fixture-cli', 'fixture'], short: 'Fixture'},
  reading: {
    agent: ID,
    hooks,
    jsonl: parser,
    label: 'Fixture Agent',
    match(file, ctx) {
      const root = path.join(ctx.env['FIXTURE_AGENT_HOME'] ?? path.join(ctx.home, '.fixture-agent'), 'sessions')
      if (path.dirname(file) !== root || !file.endsWith('.jsonl')) return null
      return {kind: 'jsonl', nativeId: path.basename(file, '.jsonl')}
    },
    roots: (ctx) => [path.join(ctx.env['FIXTURE_AGENT_HOME'] ?? path.join(ctx.home, '.fixture-agent'), 'sessions')],
  },
  screen: {
    agent: ID,
    approval: ['^Allow (\\w+)\\?'],
    busy: ['working…'],
    error: [],
    idle: ['^fx> $'],
    processes: ['fixture-agent'],
    question: [],
  },
  sessionVariable: 'FIXTURE_AGENT_SESSION_ID',
}
