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
 * Which session each process shows (pane-tie.ts): every OpenCode process opens the log with
 * O_APPEND, so its descriptor's position (`/proc/<pid>/fdinfo/<fd>`, `pos:`) is the end of the last
 * line that process wrote, and that line names its run. The session a run named last (a subagent's
 * folded into its parent through the `created id=… parentID=…` lines) is the one that process
 * shows; its contribution carries, in `heldAt`, the end of each such run's last line. Two
 * processes never end a line at the same offset, so a position matches at most one run.
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
  /** run -> the byte offset just past its last line. Absent in a state stored before it was kept. */
  ends?: Record<string, number>
  /** A subagent session -> its parent, from the `created` lines. */
  parents?: Record<string, string>
}

/** Runs remembered (one per OpenCode process that wrote to the file). */
const MAX_RUNS = 64
/** Subagent sessions remembered. */
const MAX_PARENTS = 256
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

/** The top-level session a session belongs to (itself, or its parent's, through the `created` lines). */
function rootOf(state: LogState, session: string): string {
  let s = session
  for (let i = 0; i < 8 && state.parents?.[s]; i++) s = state.parents[s]!
  return s
}

/** Keep the newest `max` keys of a record (insertion order: oldest first). */
function trim(record: Record<string, unknown>, max: number): void {
  const keys = Object.keys(record)
  for (const old of keys.slice(0, Math.max(0, keys.length - max))) delete record[old]
}

export const opencodeLogParser: TextLineParser<LogState> = {
  lines: 'text',
  contributions(state, path) {
    const bySession = new Map<string, Ask[]>()
    for (const a of Object.values(state.asks)) bySession.set(a.session, [...(bySession.get(a.session) ?? []), a])
    const heldAt = new Map<string, number[]>()
    for (const [run, session] of Object.entries(state.runs)) {
      const end = state.ends?.[run]
      if (session === null || end === undefined) continue
      const root = rootOf(state, session)
      heldAt.set(root, [...(heldAt.get(root) ?? []), end])
    }

    const out: Contribution[] = []
    for (const session of new Set([...bySession.keys(), ...heldAt.keys()])) {
      const asks = bySession.get(session)
      const first = asks?.reduce((x, y) => (y.at < x.at ? y : x))
      const extra: LogFacts = {
        ...(first
          ? {
              approval: {
                at: first.at,
                id: first.id,
                offset: first.offset,
                permission: first.permission,
                text: askText(first.permission, first.patterns),
              },
            }
          : {}),
        opencode: 'log',
        ref: path,
      }
      out.push({
        extra,
        facts: {},
        heldAt: heldAt.get(session) ?? [],
        nativeId: session,
        priority: 0,
      })
    }

    return out
  },
  init: () => ({asks: {}, ends: {}, parents: {}, runs: {}}),
  line(state, text, offset) {
    // A log is free text: a line in another shape (a stack trace, an older format) is no error.
    if (!text.startsWith('timestamp=')) return true
    const f = logFields(text)
    const run = f['run']
    if (!run) return true
    const ends = (state.ends ??= {})
    delete ends[run]
    ends[run] = offset + Buffer.byteLength(text) + 1
    trim(ends, MAX_RUNS)
    const parent = f['message'] === 'created' ? f['parentID'] : undefined
    if (parent?.startsWith('ses_') && f['id']?.startsWith('ses_')) {
      const parents = (state.parents ??= {})
      parents[f['id']] = parent
      trim(parents, MAX_PARENTS)
    }

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
    trim(state.runs, MAX_RUNS)
    return true
  },
}
