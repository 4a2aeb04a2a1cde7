/**
 * Where Claude Code keeps its files (docs/agents/claude-code.md), and which of them cast reads.
 *
 *   <base>/projects/<enc-cwd>/<sessionId>.jsonl                            transcript
 *   <base>/projects/<enc-cwd>/<sessionId>/subagents/agent-<id>.jsonl       subagent transcript (CC 2.x)
 *   <base>/projects/<enc-cwd>/<sessionId>/subagents/agent-<id>.meta.json   subagent description
 *   <base>/projects/<enc-cwd>/agent-<id>.jsonl                             subagent transcript (CC 2.0.x)
 *   <base>/sessions/<pid>.json                                             process registry
 *
 * <base> is $CLAUDE_CONFIG_DIR, else <home>/.claude. Pure: paths only, no fs.
 */
import {basename, join, normalize, sep} from 'node:path'

import type {AdapterEnv, FileMatch} from '../../core/ingest/adapter.js'

// The last answer, for the same inputs: discovery matches every file under the roots (10,000 on
// a real history), and normalising the same folder each time cost a no-op sync ~50 ms.
let lastDir: {fromEnv: string | undefined; home: string; dir: string} | null = null

export function configDir(ctx: AdapterEnv): string {
  const fromEnv = ctx.env['CLAUDE_CONFIG_DIR']
  if (lastDir && lastDir.fromEnv === fromEnv && lastDir.home === ctx.home) return lastDir.dir
  const dir = normalize(fromEnv !== undefined && fromEnv !== '' ? fromEnv : join(ctx.home, '.claude'))
  lastDir = {dir, fromEnv, home: ctx.home}
  return dir
}

export function roots(ctx: AdapterEnv): string[] {
  const base = configDir(ctx)
  return [join(base, 'projects'), join(base, 'sessions')]
}

const SESSION_FILE = /^([0-9A-Za-z][0-9A-Za-z-]*)\.jsonl$/
const AGENT_FILE = /^(agent-[0-9A-Za-z_-]+)\.jsonl$/
const AGENT_META = /^(agent-[0-9A-Za-z_-]+)\.meta\.json$/
const REGISTRY_FILE = /^(\d+)\.json$/
/** A POSIX path normalize() would change: a doubled separator, a `.` or `..` segment. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)/

export function match(path: string, ctx: AdapterEnv): FileMatch | null {
  const base = configDir(ctx)
  // Discovery hands over normalised paths (src/core/ingest/discover.ts): normalise only a path
  // that may not be (a doubled separator, a `.` or `..` segment).
  const full = sep !== '/' || NOT_NORMAL.test(path) ? normalize(path) : path
  const prefix = base.endsWith(sep) ? base : base + sep
  if (!full.startsWith(prefix)) return null
  const parts = full.slice(prefix.length).split(sep)

  if (parts[0] === 'sessions' && parts.length === 2) {
    return REGISTRY_FILE.test(parts[1] ?? '') ? {kind: 'whole', role: 'registry'} : null
  }
  if (parts[0] !== 'projects') return null

  if (parts.length === 3) {
    const file = parts[2] ?? ''
    // CC 2.0.x put subagent transcripts beside the session files; the parent's id is inside.
    const agent = AGENT_FILE.exec(file)
    if (agent) return {kind: 'jsonl', nativeId: agent[1] ?? file, role: 'subagent'}
    const session = SESSION_FILE.exec(file)
    if (session) return {kind: 'jsonl', nativeId: session[1] ?? file, parentNativeId: null, role: 'transcript'}
    return null
  }

  if (parts.length === 5 && parts[3] === 'subagents') {
    const sessionId = parts[2] ?? ''
    const file = parts[4] ?? ''
    const agent = AGENT_FILE.exec(file)
    if (agent) return {kind: 'jsonl', nativeId: `${sessionId}/${agent[1]}`, parentNativeId: sessionId, role: 'subagent'}
    const meta = AGENT_META.exec(file)
    if (meta) return {kind: 'whole', role: 'subagent-meta', nativeId: `${sessionId}/${meta[1]}`}
  }
  return null
}

/** Large tool outputs live in `<sessionId>/tool-results/`: nothing there for cast. */
export function skipDir(path: string): boolean {
  return basename(path) === 'tool-results'
}
