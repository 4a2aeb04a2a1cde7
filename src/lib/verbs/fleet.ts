/**
 * The fleet branch of a verb (docs/fleet.md): when the input names a session of another machine of
 * `cast hosts` (`HOST:ID`), the verb runs on that host through its own runner, over ssh, with this
 * input as data (src/lib/fleet/verb.ts); its result is this verb's result. Sessions of two machines
 * in one call are refused (exit 2); null when every session is this machine's, or the context does
 * not act for the fleet (the team executor, and a host running a verb it was sent).
 */
import type {VerbContext, VerbResult} from './types.js'
import {done, refusal} from './types.js'

/** The session ids an input names: `session`, then each of `sessions`. */
function sessionsOf(input: unknown): string[] {
  const i = (input ?? {}) as {session?: unknown; sessions?: unknown}
  const list: unknown[] = Array.isArray(i.sessions) ? (i.sessions as unknown[]) : []
  return [i.session, ...list].filter((x): x is string => typeof x === 'string')
}

/** Default wait for a host's answer when the call names none (--timeout). */
export const FLEET_VERB_TIMEOUT_MS = 30_000

export async function fleetVerb(ctx: VerbContext, name: string, input: unknown): Promise<VerbResult | null> {
  if (ctx.fleet !== true) return null
  const sessions = sessionsOf(input)
  if (!sessions.some((s) => s.includes(':'))) return null
  const {loadConfig} = await import('../home/config.js')
  const hosts = (await loadConfig(ctx.env)).hosts ?? []
  if (hosts.length === 0) return null
  const {routeOf, runOnHost, splitFleetId} = await import('../fleet/verb.js')
  const route = routeOf(hosts, sessions)
  if (route.kind === 'local') return null
  if (route.kind === 'refused') return refusal(route.line, route.exit)
  // Only a session field loses its host: a label or a message that starts with "laptop:" is text.
  const bare = (s: unknown): unknown => (typeof s === 'string' ? (splitFleetId(hosts, s)?.id ?? s) : s)
  const i = input as Record<string, unknown>
  const forHost: Record<string, unknown> = {...i}
  if ('session' in i) forHost.session = bare(i.session)
  if (Array.isArray(i.sessions)) forHost.sessions = i.sessions.map(bare)
  const r = await runOnHost(route.host, ctx.env, name, forHost, ctx.wait?.timeout ?? FLEET_VERB_TIMEOUT_MS)
  return r.ok ? done(r.json, r.lines, {exit: r.exit, warnings: r.warnings}) : refusal(r.line, r.exit, r.hints, r.json)
}
