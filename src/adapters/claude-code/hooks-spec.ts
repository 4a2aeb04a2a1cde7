/**
 * Where and how `cast hooks install claude-code` adds cast's hooks (docs/hooks.md).
 *
 *   $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
 *   {"hooks": {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}]}}
 *
 * Tool events take a tool-name matcher ("*": every tool), Notification a notification-type
 * matcher; the other events take none. Pure data: the merge lives in src/lib/agents/hooks/document.ts,
 * the payloads are reduced by ./hooks.ts.
 */
import {join} from 'node:path'

import type {HookEventSpec, HookSpec} from '../../core/ingest/hook-spec.js'
import {configDir} from './paths.js'
import {AGENT_ID} from './identity.js'

export const CLAUDE_HOOK_EVENTS: readonly HookEventSpec[] = [
  {event: 'SessionStart'},
  {event: 'UserPromptSubmit'},
  {event: 'PreToolUse', matcher: '*'},
  {event: 'PermissionRequest', matcher: '*'},
  {event: 'PermissionDenied', matcher: '*'},
  {event: 'PostToolUse', matcher: '*'},
  {event: 'PostToolUseFailure', matcher: '*'},
  {event: 'Notification', matcher: 'permission_prompt|elicitation_dialog|idle_prompt'},
  {event: 'Stop'},
  // A turn that fails on an API error fires StopFailure and no Stop (2.1.328).
  {event: 'StopFailure'},
  {event: 'SubagentStart'},
  {event: 'SubagentStop'},
  {event: 'PreCompact'},
  {event: 'SessionEnd'},
]

export const claudeCodeHookSpec: HookSpec = {
  agent: AGENT_ID,
  aliases: ['claude', 'claude_code', 'claudecode'],
  commandKey: 'command',
  events: CLAUDE_HOOK_EVENTS,
  // Keys in the order people write them in settings.json.
  handler: (command) => ({type: 'command', command, timeout: 10}),
  label: 'Claude Code',
  layout: 'grouped',
  name: 'claude-code',
  // The nudge (docs/hooks.md): Stop answers {"decision":"block","reason"}, SessionStart and
  // UserPromptSubmit answer hookSpecificOutput.additionalContext.
  nudgeEvents: ['Stop', 'SessionStart', 'UserPromptSubmit'],
  notes: [
    'Claude Code reads its hooks when a session starts: sessions already running pick them up after a restart (or a look at /hooks).',
  ],
  // User-scope MCP servers (2.1.328): what `claude mcp add --scope user` writes, each
  // {"type":"stdio","command","args","env"} under mcpServers.
  mcpConfigPath: (ctx) => join(ctx.env['CLAUDE_CONFIG_DIR'] || ctx.home, '.claude.json'),
  settingsPath: (ctx) => join(configDir(ctx), 'settings.json'),
  where: '$CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json',
  settingsNotes(doc) {
    return doc['disableAllHooks'] === true ? ['settings.json has "disableAllHooks": true, so Claude Code runs no hooks at all.'] : []
  },
}
