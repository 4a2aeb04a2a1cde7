/**
 * Flag values in any spelling (agents, states, comma lists), without oclif: src/lib/cli/flags.ts
 * builds its oclif flags on these, and bin/run.js's fast path for `cast sessions`
 * (src/lib/cli/sessions-fast.ts) parses with the same functions. Agents come from the registry.
 */
import {registry} from '../../adapters/index.js'
import {type Agent, WORK_STATES, type WorkState} from '../../core/model/types.js'

/**
 * Agent names in any spelling people type: the id, the CLI's binary and each
 * agent's aliases, with dashes, underscores, spaces and case alike (the registry's byAlias).
 */
export function normaliseAgent(input: string): Agent | null {
  return registry().byAlias(input)?.id ?? null
}

/** Three spellings of the first agent in the registry (an alias, the id, the binary), for help texts. */
export function spellings(): string {
  const m = registry().modules[0]
  if (!m) return ''
  const names = [m.names.aliases[0], m.id, m.reading.cli?.bin].filter((n): n is string => Boolean(n))
  return [...new Set(names)].join(', ')
}

/** One spelling of an agent other than its id, for examples (the first agent's first alias). */
export const AGENT_SPELLING = registry().modules[0]?.names.aliases[0] ?? registry().ids[0] ?? 'AGENT'

/** States in both spellings: `needs-input` and `needs_input` (and `needs input`). */
export function normaliseState(input: string): WorkState | null {
  const key = input
    .trim()
    .toLowerCase()
    .replaceAll(/[\s-]+/g, '_')
  return (WORK_STATES as readonly string[]).includes(key) ? (key as WorkState) : null
}

export const AGENT_HELP = registry().ids.join('|')
export const STATE_HELP = WORK_STATES.join('|')

export function parseAgent(input: string): Agent {
  const a = normaliseAgent(input)
  if (a === null) throw new Error(`"${input}" is not an agent; one of ${registry().ids.join(', ')} (any spelling: ${spellings()}).`)
  return a
}

export function parseState(input: string): WorkState {
  const s = normaliseState(input)
  if (s === null) throw new Error(`"${input}" is not a state; one of ${WORK_STATES.join(', ')} (needs-input and needs_input alike).`)
  return s
}

/** Every value of `values` split at its commas, trimmed, without empties and repeats. */
export function listOf(values: string | readonly unknown[] | undefined | null): string[] {
  const raw = values === undefined || values === null ? [] : typeof values === 'string' ? [values] : values.map(String)
  const out: string[] = []
  for (const v of raw.flatMap((x) => x.split(','))) {
    const t = v.trim()
    if (t !== '' && !out.includes(t)) out.push(t)
  }

  return out
}

/** A comma list and repeats alike: `--state done,idle` = `--state done --state idle`. */
export const splitList = listOf
