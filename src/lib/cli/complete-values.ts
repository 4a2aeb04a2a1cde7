/**
 * The values shell completion offers (src/commands/completion.ts writes scripts that call
 * `cast __complete KIND PREFIX`, as gh and kubectl call their own `__complete`): one candidate a
 * line, `value<TAB>description`. Reads the store without syncing and never creates it; any
 * failure completes nothing rather than printing an error into the user's command line.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {Env} from '../home/env.js'
import {oneLine} from '../../core/model/sanitize.js'

/** At most this many sessions, the most recently active first. */
const MAX_SESSIONS = 200

export async function completeValues(kind: string, prefix: string, env: Env): Promise<string[]> {
  const all = await candidates(kind, env)
  const lower = prefix.toLowerCase()
  return all.filter(([value]) => value.toLowerCase().startsWith(lower)).map(([value, about]) => (about ? `${value}\t${about}` : value))
}

async function candidates(kind: string, env: Env): Promise<[string, string][]> {
  switch (kind) {
    case 'states': {
      const {WORK_STATES} = await import('../../core/model/types.js')
      return WORK_STATES.map((s) => [s, ''])
    }

    case 'agents': {
      const {registry} = await import('../../adapters/index.js')
      return registry().ids.map((id) => [id, ''])
    }

    case 'hook-agents': {
      const {HOOK_SPECS} = await import('../agents/hooks/specs.js')
      return HOOK_SPECS.map((s) => [s.name, ''])
    }

    case 'presences': {
      const {loadConfig} = await import('../home/config.js')
      const config = await loadConfig(env)
      return config.presences.map((p) => [p.name, oneLineOf(p.instructions)])
    }

    case 'sessions':
      return sessions(env)

    default:
      return []
  }
}

/** One line, no tab (it separates value from description), control characters shown (src/core/model/sanitize.ts). */
function oneLineOf(s: string | null | undefined): string {
  return oneLine(s ?? '')
    .trim()
    .slice(0, 60)
}

async function sessions(env: Env): Promise<[string, string][]> {
  const {castHome} = await import('../home/env.js')
  const home = castHome(env)
  if (!fs.existsSync(path.join(home, 'cast.db'))) return []
  const {Store} = await import('../../core/store/store.js')
  const {shortId} = await import('../../core/model/ids.js')
  const store = new Store(home)
  try {
    return store
      .loadSessions()
      .sort((a, b) => (b.facts.lastActivityAt ?? 0) - (a.facts.lastActivityAt ?? 0))
      .slice(0, MAX_SESSIONS)
      .map((r) => [shortId(r.id), oneLineOf(r.renamed ?? r.facts.title ?? '(untitled)')])
  } finally {
    store.close()
  }
}

/** For bin/run.js: `cast __complete KIND [PREFIX]`, answered without oclif. */
export async function fastComplete(argv: readonly string[]): Promise<void> {
  let lines: string[] = []
  try {
    lines = await completeValues(argv[0] ?? '', argv[1] ?? '', process.env)
  } catch {
    // Completion offers nothing rather than an error in the middle of a command line.
  }

  process.stdout.write(lines.length > 0 ? lines.join('\n') + '\n' : '')
}
