/**
 * Where and how `cast hooks install cursor` adds cast's hooks (docs/agents.md, docs/hooks.md).
 *
 *   ~/.cursor/hooks.json   {"version": 1, "hooks": {"<event>": [{"command": "…"}]}}
 *
 * The payload carries `hook_event_name` and `conversation_id` (the chat's id). cast reads
 * `beforeSubmitPrompt` as a turn starting and `stop` as the turn settled, `afterAgentResponse`
 * for the reply's text; the others keep the session's activity current. cast's hook prints nothing, which Cursor takes as "carry on".
 */
import {join} from 'node:path'

import type {AdapterEnv} from '../../core/ingest/adapter.js'
import type {HookEventSpec, HookSpec} from '../../core/ingest/hook-spec.js'
import {AGENT_ID} from './identity.js'

export const CURSOR_HOOK_EVENTS: readonly HookEventSpec[] = [
  {event: 'sessionStart'},
  {event: 'beforeSubmitPrompt'},
  {event: 'preToolUse'},
  {event: 'postToolUse'},
  {event: 'afterAgentResponse'},
  {event: 'stop'},
  {event: 'sessionEnd'},
]

export function cursorDir(ctx: AdapterEnv): string {
  return join(ctx.home, '.cursor')
}

export const cursorHookSpec: HookSpec = {
  agent: AGENT_ID,
  aliases: ['cursor-agent', 'cursor_agent', 'cursor-cli'],
  commandKey: 'command',
  events: CURSOR_HOOK_EVENTS,
  handler: (command) => ({command}),
  hooksOnly: true,
  label: 'Cursor agent',
  layout: 'flat',
  name: 'cursor',
  notes: ['Cursor reloads hooks.json on its own; an agent already running may need a restart.'],
  required: {version: 1},
  settingsPath: (ctx) => join(cursorDir(ctx), 'hooks.json'),
  where: '~/.cursor/hooks.json',
}
