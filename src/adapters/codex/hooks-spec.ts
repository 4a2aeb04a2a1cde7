/**
 * Where and how `cast hooks install codex` adds cast's hooks (docs/hooks.md).
 *
 * - Lifecycle hooks (newer Codex): `$CODEX_HOME/hooks.json` (else ~/.codex/hooks.json), the
 *   the grouped layout: `{"hooks": {"<Event>": [{"hooks": [{"type": "command",
 *   "command": "…"}]}]}}`. A group without a matcher matches everything.
 * - The legacy `notify` program (every version): a top-level `notify = ["prog", …]` in
 *   `$CODEX_HOME/config.toml`; Codex appends one JSON argument (`agent-turn-complete`) after
 *   every turn, which `cast-hook codex <json>` spools. Codex runs a single notify program, so
 *   cast sets it only when the user has none, and takes out only its own.
 *
 * The TOML is edited as text, one line, so everything else in the file stays byte for byte:
 * a small scanner finds the top-level keys (before the first table header), stepping over
 * strings, comments and multi-line arrays.
 */
import {join} from 'node:path'

import type {HookEventSpec, HookSpec, TomlProgramSpec} from '../../core/ingest/hook-spec.js'
import {codexHome} from './paths.js'
import {AGENT_ID} from './identity.js'

/**
 * Every 0.169 event that carries state (of its 14: PreCompact and PostCompact carry none). A
 * failed turn fires no Stop: only PostModelRequest `status: "failed"` says so, and the retry's
 * PreModelRequest takes it back.
 */
export const CODEX_HOOK_EVENTS: readonly HookEventSpec[] = [
  {event: 'SessionStart'},
  {event: 'SessionEnd'},
  {event: 'UserPromptSubmit'},
  {event: 'PreToolUse'},
  {event: 'PermissionRequest'},
  {event: 'PostToolUse'},
  {event: 'PreModelRequest'},
  {event: 'PostModelRequest'},
  {event: 'Interrupt'},
  {event: 'SubagentStart'},
  {event: 'SubagentStop'},
  {event: 'Stop'},
]

interface TopLevelEntry {
  readonly key: string
  /** First and last line (inclusive) of `key = value`. */
  readonly start: number
  readonly end: number
}

interface TopLevel {
  readonly lines: string[]
  readonly entries: TopLevelEntry[]
  /** The line of the first table header, or lines.length. */
  readonly header: number
}

const KEY = /^\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*=/

function unquoteKey(k: string): string {
  if (k.startsWith('"')) {
    try {
      return JSON.parse(k) as string
    } catch {
      return k.slice(1, -1)
    }
  }

  return k.startsWith("'") ? k.slice(1, -1) : k
}

/** The top-level `key = value` entries of a TOML text, with their line spans. */
export function tomlTopLevel(text: string): TopLevel {
  const lines = text.split('\n')
  const entries: TopLevelEntry[] = []
  let depth = 0
  let multi: '"""' | "'''" | null = null
  let open: {key: string; start: number} | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (multi === null && depth === 0 && open === null) {
      if (/^\s*\[/.test(line)) return {entries, header: i, lines}
      const m = KEY.exec(line)
      if (m) open = {key: unquoteKey(m[1]!), start: i}
    }

    // Step through the line: strings, comments, brackets.
    let j = open !== null && open.start === i ? line.indexOf('=') + 1 : 0
    while (j < line.length) {
      if (multi !== null) {
        const close = line.indexOf(multi, j)
        if (close < 0) break
        j = close + 3
        multi = null
        continue
      }

      const ch = line[j]!
      if (ch === '#') break
      if (line.startsWith('"""', j) || line.startsWith("'''", j)) {
        multi = line.slice(j, j + 3) as '"""' | "'''"
        j += 3
        continue
      }

      if (ch === '"') {
        j++
        while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1
        j++
        continue
      }

      if (ch === "'") {
        const close = line.indexOf("'", j + 1)
        j = close < 0 ? line.length : close + 1
        continue
      }

      if (ch === '[' || ch === '{') depth++
      else if (ch === ']' || ch === '}') depth = Math.max(0, depth - 1)
      j++
    }

    if (open !== null && multi === null && depth === 0) {
      entries.push({end: i, key: open.key, start: open.start})
      open = null
    }
  }

  if (open !== null) entries.push({end: lines.length - 1, key: open.key, start: open.start})
  return {entries, header: lines.length, lines}
}

function tomlString(s: string): string {
  return JSON.stringify(s)
}

function notifyLine(argv: readonly string[]): string {
  return `notify = [${argv.map(tomlString).join(', ')}]`
}

const isCast = (value: string): boolean => /(?:^|[\s/'"=])cast-hook['"]?(?:[\s,\]]|$)/.test(value)

function findKey(text: string, key: string): {top: TopLevel; entry: TopLevelEntry} | null {
  const top = tomlTopLevel(text)
  const entry = top.entries.find((e) => e.key === key)
  return entry === undefined ? null : {entry, top}
}

export const codexNotify: TomlProgramSpec = {
  find(text) {
    const hit = findKey(text, 'notify')
    if (hit === null) return null
    const value = hit.top.lines.slice(hit.entry.start, hit.entry.end + 1).join('\n')
    return {cast: isCast(value), value: value.replace(/^\s*notify\s*=\s*/, '').trim()}
  },
  key: 'notify',
  notes(text) {
    const out: string[] = []
    const features = /^\s*\[features\]\s*$([\s\S]*?)(?=^\s*\[|(?![\s\S]))/m.exec(text)?.[1] ?? ''
    if (/^\s*(?:codex_)?hooks\s*=\s*false\b/m.test(features)) {
      out.push('config.toml turns hooks off ([features] hooks = false): only notify reports turns.')
    }

    return out
  },
  path: (ctx) => join(codexHome(ctx), 'config.toml'),
  remove(text) {
    const hit = findKey(text, 'notify')
    if (hit === null) return text
    const value = hit.top.lines.slice(hit.entry.start, hit.entry.end + 1).join('\n')
    if (!isCast(value)) return text
    const lines = [...hit.top.lines]
    lines.splice(hit.entry.start, hit.entry.end - hit.entry.start + 1)
    return lines.join('\n')
  },
  set(text, argv) {
    const line = notifyLine(argv)
    const hit = findKey(text, 'notify')
    if (hit !== null) {
      const lines = [...hit.top.lines]
      lines.splice(hit.entry.start, hit.entry.end - hit.entry.start + 1, line)
      return lines.join('\n')
    }

    if (text === '') return line + '\n'
    const top = tomlTopLevel(text)
    const lines = [...top.lines]
    if (top.header < lines.length) {
      // After the last top-level key (blank lines and comments above the first table stay with it).
      const last = top.entries.at(-1)
      lines.splice(last === undefined ? top.header : last.end + 1, 0, line)
      return lines.join('\n')
    }

    // No table: append (after a final newline).
    return text.endsWith('\n') ? text + line + '\n' : text + '\n' + line + '\n'
  },
}

export const codexHookSpec: HookSpec = {
  agent: AGENT_ID,
  aliases: ['openai-codex', 'codex-cli'],
  commandKey: 'command',
  events: CODEX_HOOK_EVENTS,
  handler: (command) => ({type: 'command', command, timeout: 10}),
  hooksOnly: true,
  label: 'Codex',
  layout: 'grouped',
  name: 'codex',
  // The nudge (docs/hooks.md): Stop answers {"decision":"block","reason"}, SessionStart and
  // UserPromptSubmit answer hookSpecificOutput.additionalContext.
  nudgeEvents: ['Stop', 'SessionStart', 'UserPromptSubmit'],
  notes: [
    'Codex runs no new hook until you trust it: at its next start it shows "Hooks need review" — choose "Trust all and continue" (or review them in /hooks). Codex keeps that in config.toml as [hooks.state."<hooks file>:<event>:0:0"] trusted_hash; after any change to cast\'s hooks it asks again.',
    'Older Codex builds without lifecycle hooks still report each finished turn through notify.',
  ],
  settingsPath: (ctx) => join(codexHome(ctx), 'hooks.json'),
  where: '$CODEX_HOME/hooks.json (lifecycle hooks) and notify in $CODEX_HOME/config.toml, else ~/.codex',
  toml: codexNotify,
}
