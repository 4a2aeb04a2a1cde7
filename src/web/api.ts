/**
 * The page's side of the server's JSON (src/lib/web/server.ts): the shapes it reads (the
 * session object of docs/contract.md, the listing of `cast sessions --json`) and the calls.
 */
import type {AskJson, DecisionJson, DetailJson, ErrorJson, PageListingJson, SessionJson, VerbJson} from './wire.js'

// The shapes are the server's own (src/core/model/wire.ts), under the names the page uses.
export type Ask = AskJson
export type Decision = DecisionJson
export type Session = SessionJson
export type VerbInfo = VerbJson
export type Listing = PageListingJson

/** Why the page may not act on this session (the server refuses it too), or null. */
export function readOnlyOf(l: Listing | null, id: string | undefined): string | null {
  if (!l || id === undefined || !l.read_only || !Object.hasOwn(l.read_only, id)) return null
  const line = l.read_only[id]
  return typeof line === 'string' ? line : null
}

export type Detail = DetailJson

/** What a verb came to on another machine of the team, as that machine reported it. */
export interface Outcome {
  ok: boolean
  text: string
}

export interface Failure {
  error: ErrorJson
}

export type Result = {ok: true; json: unknown} | {ok: false; error: Failure['error']}

async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result> {
  try {
    const res = await fetch(path, {
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      headers: body === undefined ? {} : {'content-type': 'application/json'},
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
