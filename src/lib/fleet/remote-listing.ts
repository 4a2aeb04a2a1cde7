/**
 * What a host's `cast sessions --json` said, read as hostile input: bounded (./ssh.ts), parsed,
 * each session checked for the fields the fleet reads, every string made visible
 * (src/core/model/wire.ts `visible`), and every id namespaced `HOST:ID` so an id listed from one host
 * only ever names that host's session. Anything else is one line: "answered garbage".
 */
import {BUCKETS, WORK_STATES} from '../../core/model/types.js'
import {visible, type SessionJson} from '../../core/model/wire.js'

/** A session of another host: its ids namespaced, `host` its name. */
export type FleetSessionJson = SessionJson & {host: string | null; stale?: true}

/** At most this many sessions are taken from one host's answer. */
export const MAX_REMOTE_SESSIONS = 20_000

const ID = /^[a-z2-7]{26}$/
const STATES: ReadonlySet<string> = new Set(WORK_STATES)
const BUCKET_SET: ReadonlySet<string> = new Set([...BUCKETS, 'folded', 'hidden'])

/** Every string of a JSON value made visible (control, C1 and bidi characters), depth-bounded. */
function clean(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return visible(v.length > 20_000 ? v.slice(0, 20_000) : v)
  if (depth > 8 || v === null || typeof v !== 'object') return typeof v === 'number' || typeof v === 'boolean' || v === null ? v : null
  if (Array.isArray(v)) return v.slice(0, 1000).map((x) => clean(x, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[visible(k)] = clean(x, depth + 1)
  return out
}

/** `HOST:ID` for one of the host's ids (its short id too); null stays null. */
export function namespaced(host: string, id: unknown): string | null {
  return typeof id === 'string' ? `${host}:${id}` : null
}

function session(host: string, raw: unknown): FleetSessionJson | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
  const r = raw as Record<string, unknown>
  if (typeof r.id !== 'string' || !ID.test(r.id)) return null
  if (typeof r.state !== 'string' || !STATES.has(r.state)) return null
  if (typeof r.bucket !== 'string' || !BUCKET_SET.has(r.bucket)) return null
  const s = clean(r) as Record<string, unknown>
  const decision = s.decision as Record<string, unknown> | null | undefined
  return {
    ...(s as unknown as SessionJson),
    children: Array.isArray(s.children) ? s.children.map((c) => namespaced(host, c)).filter((c): c is string => c !== null) : [],
    decision: decision && typeof decision === 'object' ? ({...decision, session_id: namespaced(host, decision.session_id)} as never) : null,
    host,
    id: `${host}:${r.id}`,
    labels: Array.isArray(s.labels) ? s.labels.filter((l): l is string => typeof l === 'string') : [],
    owners: Array.isArray(s.owners) ? s.owners.filter((l): l is string => typeof l === 'string') : [],
    parent_id: namespaced(host, s.parent_id),
    short_id: `${host}:${typeof s.short_id === 'string' ? s.short_id : r.id.slice(0, 7)}`,
  }
}

export type ParsedListing = {ok: true; sessions: FleetSessionJson[]; generatedAt: string | null} | {ok: false; line: string}

/** A host's `cast sessions --json` stdout, or why it is not one (one line, no host bytes in it). */
export function parseRemoteListing(host: string, stdout: string, truncated: boolean): ParsedListing {
  if (truncated) return {line: 'answered more than the fleet reads from one host (cut off): not a listing', ok: false}
  let raw: unknown
  try {
    raw = JSON.parse(stdout)
  } catch {
    return {line: `answered garbage (${stdout.length} bytes that are not JSON)`, ok: false}
  }

  if (typeof raw !== 'object' || raw === null || !Array.isArray((raw as {sessions?: unknown}).sessions)) {
    return {line: 'answered JSON that is not a cast listing (no "sessions")', ok: false}
  }

  const list = (raw as {sessions: unknown[]}).sessions
  const sessions: FleetSessionJson[] = []
  for (const s of list.slice(0, MAX_REMOTE_SESSIONS)) {
    const one = session(host, s)
    if (one === null) return {line: 'answered a listing with a malformed session (no valid id, state or bucket)', ok: false}
    sessions.push(one)
  }

  const at = (raw as {generated_at?: unknown}).generated_at
  return {generatedAt: typeof at === 'string' && !Number.isNaN(Date.parse(at)) ? at : null, ok: true, sessions}
}
