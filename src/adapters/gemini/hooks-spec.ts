/**
 * Where and how `cast hooks install gemini` adds cast's hooks (docs/hooks.md).
 *
 *   $GEMINI_CLI_HOME/.gemini/settings.json, else ~/.gemini/settings.json
 *   {"hooks": {"<Event>": [{"hooks": [{"name": "cast", "type": "command", "command": "…"}]}]}}
 *
 * A group without a matcher runs for every tool and every lifecycle event. The payload carries
 * `session_id` and `hook_event_name`; cast reads BeforeAgent/AfterAgent as turn start/end and
 * Notification `ToolPermission` as an approval waiting. Timeouts are in milliseconds.
 */
import {join} from 'node:path'

import type {AdapterEnv} from '../../core/ingest/adapter.js'
import type {HookEventSpec, HookSpec} from '../../core/ingest/hook-spec.js'
import {AGENT_ID} from './identity.js'

export const GEMINI_HOOK_EVENTS: readonly HookEventSpec[] = [
  {event: 'SessionStart'},
  {event: 'BeforeAgent'},
  {event: 'BeforeTool'},
  {event: 'AfterTool'},
  {event: 'Notification'},
  {event: 'AfterAgent'},
  {event: 'PreCompress'},
  {event: 'SessionEnd'},
]

/** `$GEMINI_CLI_HOME` replaces the home folder Gemini CLI keeps `.gemini/` in. */
export function geminiDir(ctx: AdapterEnv): string {
  const home = ctx.env['GEMINI_CLI_HOME']?.trim()
  return join(home ? home : ctx.home, '.gemini')
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

export const geminiHookSpec: HookSpec = {
  agent: AGENT_ID,
  aliases: ['gemini-cli', 'gemini_cli'],
  commandKey: 'command',
  events: GEMINI_HOOK_EVENTS,
  handler: (command) => ({name: 'cast', type: 'command', command, timeout: 10_000}),
  jsonc: true,
  label: 'Gemini CLI',
  layout: 'grouped',
  name: 'gemini',
  notes: ['Gemini CLI reads settings.json when it starts: restart running sessions to pick the hooks up.'],
  settingsNotes(doc) {
    const out: string[] = []
    const config = doc['hooksConfig']
    if (isObject(config) && config['enabled'] === false)
      out.push('settings.json has "hooksConfig": {"enabled": false}: Gemini CLI runs no hooks.')
    const tools = doc['tools']
    if (isObject(tools) && tools['enableHooks'] === false)
      out.push('settings.json has "tools": {"enableHooks": false}: older Gemini CLI builds run no hooks.')
    return out
  },
  settingsPath: (ctx) => join(geminiDir(ctx), 'settings.json'),
  where: '~/.gemini/settings.json ($GEMINI_CLI_HOME/.gemini)',
}
