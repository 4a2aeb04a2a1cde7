/**
 * The page's side of the server's JSON (src/lib/web/server.ts): the shapes it reads (the
 * session object of docs/contract.md, the listing of `cast sessions --json`) and the calls.
 */

export interface Ask {
  kind: 'approval' | 'question' | 'error' | 'decision'
  text: string
  tool: string | null
}

export interface Decision {
  id: string
  question: string
  why: string | null
  recommend: number | null
  answer: number | null
  options: {n: number; label: string; effect: string}[]
}

export interface Session {
  id: string
  short_id: string
  agent: string
  title: string | null
  cwd: string | null
  state: string
  reason: string
  bucket: string
  messages: number
  last_activity_at: string | null
  live: boolean
  pinned: boolean
  filing: string | null
  quiet: boolean
  owners: string[]
  runner: string | null
  device: string | null
  labels: string[]
  snoozed_until: string | null
  state_line: {text: string; status: string; at: string; messages_since: number} | null
  ask: Ask | null
  decision: Decision | null
}

export interface VerbInfo {
  name: string
  label: string
  key: string
  summary: string
  prompt: string | null
  takes: 'none' | 'time' | 'label' | 'text' | 'confirm'
  needs_approval: boolean
  global: boolean
  drop_on: string | null
}

export interface Listing {
  me: string
  generated_at: string
  counts: Record<string, number>
  tally: string
  seq: number
  sessions: Session[]
  verbs: VerbInfo[]
  /** `cast web --team`: every session of the team. */
  team?: boolean
  /** Teammates' sessions I may not act on, by id, and why ("read-only: owned by X on host-y"). */
  read_only?: Record<string, string>
  /** The first answer in the page holds only the head of the open sections (the stream brings the rest)... */
  head?: true
  /** ...and how many cards each section has. */
  sections?: Record<string, number>
}

/** Why the page may not act on this session (the server refuses it too), or null. */
export function readOnlyOf(l: Listing | null, id: string | undefined): string | null {
  if (!l || id === undefined || !l.read_only || !Object.hasOwn(l.read_only, id)) return null
  const line = l.read_only[id]
  return typeof line === 'string' ? line : null
}

export interface Detail {
  session: Session
  last_assistant_text: string | null
  approval: {text: string; at: string} | null
  question: {
    text: string
    at: string
    choices: {label: string; description: string | null}[] | null
    /** Several questions or a multiple choice: every question and its options (answered in the terminal). */
    questions:
      {question: string; header: string | null; multiSelect: boolean; options: {label: string; description: string | null}[]}[] | null
  } | null
  error: {text: string; at: string} | null
  screen_dialog: string | null
}

/** What a verb came to on another machine of the team, as that machine reported it. */
export interface Outcome {
  ok: boolean
  text: string
}

export interface Failure {
  error: {code: string; exit_code: number; message: string; suggestions: string[]}
}

export type Result = {ok: true; json: unknown} | {ok: false; error: Failure['error']}

/** Where the page keeps its key: this origin's own storage, which no other port or site can read. */
export const KEY_STORE = 'cast-key'

/**
 * The key of this browser's session or device: every API call sends it as a header (the
 * cookie alone, which the browser also sends to any other server on this host, is not enough).
 * Signing in puts it in the address's fragment (never sent to a server); it moves here and
 * leaves the address bar and the history.
 */
export function apiKey(): string {
  const m = /(?:^#|&)key=([\w-]{20,100})/.exec(window.location.hash)
  if (m) {
    try {
      window.localStorage.setItem(KEY_STORE, m[1]!)
    } catch {
      // Storage refused (a private window's quota): the key lives as long as this page.
      memoryKey = m[1]!
    }

    window.history.replaceState(null, '', window.location.pathname + window.location.search)
  }

  try {
    return window.localStorage.getItem(KEY_STORE) ?? memoryKey
  } catch {
    return memoryKey
  }
}

let memoryKey = ''
apiKey()

/** The headers every API call carries. */
export function apiHeaders(json = false): Record<string, string> {
  return {'x-cast-key': apiKey(), ...(json ? {'content-type': 'application/json'} : {})}
}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result> {
  try {
    const res = await fetch(path, {
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      headers: apiHeaders(body !== undefined),
      method,
    })
    const json = (await res.json()) as unknown
    if (res.ok) return {json, ok: true}
    const f = json as Partial<Failure>
    return {error: f.error ?? {code: 'failure', exit_code: 1, message: `HTTP ${res.status}`, suggestions: []}, ok: false}
  } catch (error) {
    return {
      error: {code: 'failure', exit_code: 1, message: `The server did not answer: ${(error as Error).message}`, suggestions: []},
      ok: false,
    }
  }
}

export const get = (path: string): Promise<Result> => call('GET', path)
export const post = (path: string, body: unknown): Promise<Result> => call('POST', path, body)

/** The line a verb's JSON answer gives a person: what was done and where the session is now. */
export function resultLine(verb: string, json: unknown): string {
  if (json && typeof json === 'object') {
    const o = json as Record<string, unknown>
    const where = (s: Session): string => `${s.short_id} → ${s.bucket} (${s.state}:${s.reason})`
    const undone = o['undone'] as {verb?: string} | undefined
    if (undone && typeof undone === 'object') return `Undid ${undone.verb ?? 'the last action'}`
    if (o['queued'] === true && o['session'])
      return `Queued for ${(o['session'] as Session).short_id}: it goes in when the current turn ends${o['delivering'] === false ? ' (once cast daemon or cast web runs)' : ''}`
    if (typeof o['via'] === 'string' && o['session']) return `Sent via ${o['via']}: ${where(o['session'] as Session)}`
    if (Array.isArray(o['sessions']) && o['sessions'].length > 0) return `${verb}: ${(o['sessions'] as Session[]).map(where).join(', ')}`
    for (const k of ['line', 'message', 'result', 'status']) if (typeof o[k] === 'string') return `${verb}: ${o[k]}`
  }

  return `${verb}: done`
}
