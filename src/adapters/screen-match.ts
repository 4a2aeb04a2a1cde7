/**
 * The terminal fallback's matcher (docs/screen-and-doctor.md): the bottom lines of an agent's tmux pane,
 * read against that agent's screen patterns, give what the screen shows: a permission dialog
 * (`approval`), a question dialog (`question`), an error banner (`error`), work in progress
 * (`busy`) or a plain prompt (`idle`). Pure: text in, {kind, text} out.
 *
 * The patterns are data (`src/adapters/<agent>/screen-patterns.ts`), and the config's
 * `screen_patterns` replaces them per agent and kind without a release. This module takes the
 * built-in patterns as given (the registry's in src/adapters/screen.ts, the light list's in
 * src/adapters/light.ts) and loads no adapter.
 *
 * Order of the checks: the hard blocks a dialog shows first (approval, then question), then busy,
 * then an error banner, then idle. A busy indicator beats an error banner (the agent is retrying,
 * the banner is history) and a prompt (an agent that takes input while it works still shows its
 * prompt box).
 */
import type {Agent} from '../core/model/types.js'

export {
  type CompiledScreenPatterns,
  type DialogKeys,
  SCREEN_KINDS,
  type ScreenKind,
  type ScreenMatch,
  type ScreenPatterns,
} from './screen-types.js'
import type {CompiledScreenPatterns, ScreenKind, ScreenMatch, ScreenPatterns} from './screen-types.js'
import {SCREEN_KINDS} from './screen-types.js'

/** How many non-empty lines from the bottom of the screen are read. */
export const SCREEN_LINES = 25

/** `screen_patterns` in the config: {agent: {kind: [pattern…]}}. */
export type ScreenOverrides = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>

/** `/source/flags` → RegExp(source, flags + m); anything else → RegExp(text, m). Throws when invalid. */
export function compilePattern(pattern: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(pattern)
  if (literal) {
    const flags = new Set([...literal[2]!].filter((f) => 'isu'.includes(f)))
    flags.add('m')
    return new RegExp(literal[1]!, [...flags].join(''))
  }

  return new RegExp(pattern, 'm')
}

/** Agent names the config may use: cast's id, or with dashes for underscores. */
function agentKey(name: string): string {
  return name.trim().toLowerCase().replaceAll('-', '_')
}

/**
 * The built-in patterns with the config's merged over them: a kind the config names replaces the
 * built-in list for that agent (an empty list switches the kind off); other kinds keep theirs.
 * An invalid pattern is left out and reported, never fatal. An agent cast has no patterns for
 * can be given patterns (and `processes`) in the config too.
 */
export function compileScreenPatterns(
  overrides: ScreenOverrides,
  builtin: readonly ScreenPatterns[],
): {
  patterns: CompiledScreenPatterns[]
  errors: string[]
} {
  const errors: string[] = []
  const byAgent = new Map<string, Record<string, readonly string[]>>()
  for (const [name, kinds] of Object.entries(overrides)) {
    if (kinds === null || typeof kinds !== 'object') continue
    byAgent.set(agentKey(name), {...byAgent.get(agentKey(name)), ...kinds})
  }

  const compile = (agent: string, kind: string, list: readonly unknown[]): RegExp[] => {
    const out: RegExp[] = []
    for (const [i, p] of list.entries()) {
      if (typeof p !== 'string') continue
      try {
        out.push(compilePattern(p))
      } catch (error) {
        errors.push(`screen_patterns.${agent}.${kind}.${i}: ${(error as Error).message}`)
      }
    }

    return out
  }

  const patterns: CompiledScreenPatterns[] = []
  const known = new Set<string>()
  for (const b of builtin) {
    known.add(b.agent)
    const o = byAgent.get(b.agent) ?? {}
    const list = (kind: ScreenKind): readonly string[] => (Array.isArray(o[kind]) ? o[kind] : b[kind])
    patterns.push({
      agent: b.agent,
      kinds: Object.fromEntries(SCREEN_KINDS.map((k) => [k, compile(b.agent, k, list(k))])) as Record<ScreenKind, RegExp[]>,
      processes: Array.isArray(o['processes']) ? o['processes'].filter((p) => typeof p === 'string') : b.processes,
    })
  }

  for (const [agent, o] of byAgent) {
    if (known.has(agent)) continue
    // An override's values come from the user's config: only the strings among them count.
    const list = (kind: string): readonly unknown[] => {
      const v: unknown = o[kind]
      return Array.isArray(v) ? v : []
    }

    patterns.push({
      agent,
      kinds: Object.fromEntries(SCREEN_KINDS.map((k) => [k, compile(agent, k, list(k))])) as Record<ScreenKind, RegExp[]>,
      processes: list('processes').filter((p) => typeof p === 'string'),
    })
  }

  return {errors, patterns}
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g
/** Box borders at the start and end of a line (dialogs drawn in a frame). */
const BORDER_START = /^\s*[│┃║]/
const BORDER_END = /[│┃║]\s*$/

/**
 * The bottom of a screen as the patterns read it: escape sequences removed, a frame's side
 * borders taken off each line, trailing blanks trimmed, empty lines dropped, the last `n` kept.
 */
export function bottomLines(screen: string, n = SCREEN_LINES): string[] {
  const out: string[] = []
  for (const raw of screen.replace(ANSI, '').split(/\r?\n/)) {
    const line = raw.replace(BORDER_START, '').replace(BORDER_END, '').replace(/\s+$/, '')
    if (line.trim() === '') continue
    out.push(line)
  }

  return out.slice(-n)
}

/** A line as a person would quote it: no selection marker, no frame, single spaces, at most 200 characters. */
export function cleanText(text: string): string {
  const t = text
    .replace(/[│┃║╭╮╰╯]/g, ' ')
    .replace(/^\s*[❯›>●](?:\s+|$)/, '')
    .replace(/\s+/g, ' ')
    .trim()
  return t.length > 200 ? `${t.slice(0, 199)}…` : t
}

/** What the screen shows, or null when none of the agent's patterns match. */
export function matchScreen(screen: string | readonly string[], patterns: CompiledScreenPatterns): ScreenMatch | null {
  const lines = typeof screen === 'string' ? bottomLines(screen) : screen
  if (lines.length === 0) return null
  const text = lines.join('\n')
  for (const kind of SCREEN_KINDS) {
    for (const re of patterns.kinds[kind]) {
      re.lastIndex = 0
      const m = re.exec(text)
      if (!m) continue
      const group = m.slice(1).find((g) => g !== undefined && g.trim() !== '')
      const start = text.lastIndexOf('\n', m.index) + 1
      const end = text.indexOf('\n', m.index)
      const line = text.slice(start, end === -1 ? undefined : end)
      return {kind, text: cleanText(group ?? line)}
    }
  }

  return null
}

/**
 * Everything the sweep needs, from the built-in patterns and the config's: which process names
 * are which agent, and what a given agent's screen shows.
 */
export function screenMatcher(
  overrides: ScreenOverrides,
  builtin: readonly ScreenPatterns[],
): {
  readonly processes: ReadonlyMap<string, Agent>
  readonly patterns: readonly CompiledScreenPatterns[]
  readonly errors: readonly string[]
  match(agent: Agent, screen: string): ScreenMatch | null
} {
  const {errors, patterns} = compileScreenPatterns(overrides, builtin)
  const byAgent = new Map(patterns.map((p) => [p.agent, p]))
  const processes = new Map<string, Agent>()
  for (const p of patterns) for (const name of p.processes) if (!processes.has(name)) processes.set(name, p.agent)
  return {
    errors,
    match(agent, screen) {
      const p = byAgent.get(agent)
      return p ? matchScreen(screen, p) : null
    },
    patterns,
    processes,
  }
}
