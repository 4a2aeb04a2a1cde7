/**
 * OpenCode's own log, `<data>/opencode/log/opencode.log` (1.18.33), read for the one thing its
 * database cannot show: a pending permission. OpenCode keeps permission requests in its server's
 * memory; the database only shows the tool part left `{"status":"running"}`, exactly as a tool
 * that is still running. The log says it (observed, docs/agents/opencode.md):
 *
 *   timestamp=… level=INFO run=961ca0e4 message=loop session.id=ses_… step=0
 *   timestamp=… level=INFO run=961ca0e4 message=evaluated permission=external_directory pattern=/etc/* … action.action=ask
 *   timestamp=… level=INFO run=961ca0e4 message=asking id=per_… permission=external_directory patterns="[\"/etc/*\"]"
 *
 * Lines are `key=value` pairs (a value with spaces is a JSON-quoted string). `run` names one
 * OpenCode process; every process appends to the same file. An `asking` line names no session:
 * it belongs to the session the same run named last (`session.id=` / `created id=`), title
 * requests (`agent=title`) aside. The ask is answered when that run names the session again (the
 * loop goes on: `loop`, `process`, `stream`, `exiting loop`), which is what OpenCode logs after
 * "Allow". After "Reject" it logs nothing at all: the database shows that one (the tool part's
 * rejection error settles the turn, model.ts), and compose lays an ask only over an unsettled turn.
 *
 * Pure: lines in, contributions out; the state is small (bounded runs, open asks only).
 */
import type {Contribution, TextLineParser} from '../../core/ingest/adapter.js'
import type {LogFacts} from './facts.js'

interface Ask {
  readonly id: string
  readonly session: string
  readonly run: string
  readonly permission: string
  readonly patterns: readonly string[]
  readonly at: number
  readonly offset: number
}

export interface LogState {
  /** run -> the session it named last. Insertion order: oldest first. */
  runs: Record<string, string | null>
  /** Open asks by permission id. */
  asks: Record<string, Ask>
}

/** Runs remembered (one per OpenCode process that wrote to the file). */
const MAX_RUNS = 64
const FIELD = /([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|\S*)/g

/** `key=value` pairs of one log line; quoted values unquoted. */
export function logFields(line: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of line.matchAll(FIELD)) {
    const raw = m[2]!
    let value = raw
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw) as string
      } catch {
        value = raw.slice(1, -1)
      }
    }

    if (!(m[1]! in out)) out[m[1]!] = value
  }

  return out
}

function patternsOf(value: string | undefined): string[] {
  if (!value) return []
  try {
    const parsed = JSON.parse(value) as unknown
    if (Array.isArray(parsed)) return parsed.filter((p): p is string => typeof p === 'string')
  } catch {
    // not JSON: one pattern
  }

  return [value]
}

/** What the dialog asks, in the words OpenCode's dialog uses where it has them. */
export function askText(permission: string, patterns: readonly string[]): string {
  const what = permission === 'external_directory' ? 'Access external directory' : permission.replaceAll('_', ' ')
  const on = patterns.filter((p) => p !== '*')
  return on.length > 0 ? `${what} ${on.join(', ')}` : what
}

function sessionNamed(f: Record<string, string>): string | null {
  const sid = f['session.id'] ?? (f['message'] === 'created' ? f['id'] : undefined)
  return sid && sid.startsWith('ses_') ? sid : null
}

export const opencodeLogParser: TextLineParser<LogState> = {
  lines: 'text',
  contributions(state, path) {
    const bySession = new Map<string, Ask[]>()
    for (const a of Object.values(state.asks)) bySession.set(a.session, [...(bySession.get(a.session) ?? []), a])
    const out: Contribution[] = []
    for (const [session, asks] of bySession) {
      const first = asks.reduce((x, y) => (y.at < x.at ? y : x))
      const extra: LogFacts = {
        approval: {
          at: first.at,
          id: first.id,
          offset: first.offset,
          permission: first.permission,
          text: askText(first.permission, first.patterns),
        },
        opencode: 'log',
        ref: path,
      }
      out.push({
        extra,
        facts: {},
        nativeId: session,
        priority: 0,
      })
    }

    return out
  },
  init: () => ({asks: {}, runs: {}}),
  line(state, text, offset) {
    // A log is free text: a line in another shape (a stack trace, an older format) is no error.
    if (!text.startsWith('timestamp=')) return true
    const f = logFields(text)
    const run = f['run']
    if (!run) return true
    const at = Date.parse(f['timestamp'] ?? '')
    const message = f['message']
    if (message === 'asking' && f['id']?.startsWith('per_')) {
      const session = state.runs[run]
      if (session) {
        state.asks[f['id']] = {
          at: Number.isFinite(at) ? at : 0,
          id: f['id'],
          offset,
          patterns: patternsOf(f['patterns']),
          permission: f['permission'] ?? 'permission',
          run,
          session,
        }
      }

      return true
    }

    const session = sessionNamed(f)
    if (session === null || f['agent'] === 'title') return true
    // The run moved on in this session: whatever it asked there was answered. Another run naming
    // it (the session resumed by a new process) means the old dialog is gone with its process.
    for (const [id, a] of Object.entries(state.asks)) if (a.session === session) delete state.asks[id]
    delete state.runs[run]
    state.runs[run] = session
    const runs = Object.keys(state.runs)
    for (const old of runs.slice(0, Math.max(0, runs.length - MAX_RUNS))) delete state.runs[old]
    return true
  },
}
