/**
 * Where and how `cast hooks install copilot` adds cast's hooks (docs/hooks.md).
 *
 * Copilot CLI loads every `*.json` in its user hooks folder, so cast keeps its own file there
 * and touches nothing else: `$COPILOT_HOME/hooks/cast.json` (else `$COPILOT_CONFIG_DIR`, else
 * ~/.copilot), `{"version": 1, "hooks": {"<Event>": [{"type": "command", "bash": "…"}]}}`.
 *
 * The event key picks the payload's shape: PascalCase keys get the VS Code-compatible payload
 * with `hook_event_name` and snake_case `session_id`, which is what the spool reducer needs to
 * tell events apart (the camelCase payloads carry no event name). `notification` has no
 * PascalCase form; its payload names itself (`hook_event_name: "Notification"`, `sessionId`,
 * `notification_type`: permission_prompt, elicitation_dialog, agent_idle, …).
 */
import {join} from 'node:path'

import type {AdapterEnv} from '../../core/ingest/adapter.js'
import type {HookEventSpec, HookSpec} from '../../core/ingest/hook-spec.js'
import {AGENT_ID} from './identity.js'

export const COPILOT_HOOK_EVENTS: readonly HookEventSpec[] = [
  {event: 'SessionStart'},
  {event: 'UserPromptSubmit'},
  {event: 'PreToolUse'},
  {event: 'PostToolUse'},
  {event: 'PostToolUseFailure'},
  {event: 'notification'},
  {event: 'Stop'},
  {event: 'SubagentStop'},
  {event: 'ErrorOccurred'},
  {event: 'PreCompact'},
  {event: 'SessionEnd'},
]

export function copilotDir(ctx: AdapterEnv): string {
  const fromEnv = ctx.env['COPILOT_HOME']?.trim() || ctx.env['COPILOT_CONFIG_DIR']?.trim()
  return fromEnv ? fromEnv : join(ctx.home, '.copilot')
}

export const copilotHookSpec: HookSpec = {
  agent: AGENT_ID,
  aliases: ['copilot-cli', 'github-copilot', 'gh-copilot'],
  commandKey: 'bash',
  events: COPILOT_HOOK_EVENTS,
  handler: (command) => ({type: 'command', bash: command, timeoutSec: 10}),
  hooksOnly: true,
  label: 'Copilot CLI',
  layout: 'flat',
  name: 'copilot',
  notes: ['Copilot CLI loads hooks when a session starts: restart running sessions to pick them up.'],
  required: {version: 1},
  settingsPath: (ctx) => join(copilotDir(ctx), 'hooks', 'cast.json'),
  where: '~/.copilot/hooks/cast.json ($COPILOT_HOME)',
}
