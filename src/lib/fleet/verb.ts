/**
 * A verb on a session of another host (`cast approve laptop:abcd1234`): the session's `HOST:` names
 * the host, and the verb runs there through the host's own verb runner: `cast run-verb NAME` over
 * the same ssh, the verb's typed input as JSON on its stdin (src/commands/run-verb.ts), so the
 * host's evidence rules decide and its store keeps the triage. The command line holds only fixed
 * words; no argument of the person's is ever a word of it. What comes back is the host's result
 * (its JSON, its lines, its exit code or its refusal), bounded and made visible.
 */
import type {HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {hostSpec, INSTALL_LINE} from './hosts.js'
import {remoteCastCommand} from './remote-argv.js'
import {runSsh, sshFailure} from './ssh.js'
import {oneLine, visible} from '../../core/model/wire.js'

/** `HOST:REST` when HOST is a configured host, else null (a local id or prefix). */
export function splitFleetId(hosts: readonly HostConfig[], arg: string): {host: HostConfig; id: string} | null {
  const i = arg.indexOf(':')
  if (i <= 0) return null
  const host = hosts.find((h) => h.name === arg.slice(0, i))
  return host ? {host, id: arg.slice(i + 1)} : null
}

export type FleetRoute =
  | {readonly kind: 'local'}
  | {readonly kind: 'remote'; readonly host: HostConfig}
  | {readonly kind: 'refused'; readonly line: string; readonly exit: number}

/** Where the sessions of one call run: all here, all on one host, or refused (a mix). */
export function routeOf(hosts: readonly HostConfig[], sessions: readonly string[]): FleetRoute {
  const found = sessions.map((s) => splitFleetId(hosts, s))
  const names = new Set(found.map((f) => f?.host.name ?? null))
  if (names.size === 1 && names.has(null)) return {kind: 'local'}
  if (names.size > 1) {
    return {
      exit: EXIT.USAGE,
      kind: 'refused',
      line: "Sessions of different machines in one call: run the verb once per machine (cast sessions --fleet names each one's host).",
    }
  }

  return {host: found[0]!.host, kind: 'remote'}
}

/** The host's result of one verb: the shape of the runner's VerbResult (src/lib/verbs/types.ts), or why not. */
export type HostVerbOutcome =
  | {readonly ok: true; readonly json: unknown; readonly lines: string[]; readonly warnings: string[]; readonly exit: number}
  | {readonly ok: false; readonly json?: unknown; readonly line: string; readonly hints: string[]; readonly exit: number}

/** Bound on what a host's result may be (its JSON listing of a kill of many sessions fits easily). */
const MAX_RESULT_BYTES = 4 * 2 ** 20

const strings = (v: unknown, max: number): string[] | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.slice(0, max).map((x: string) => oneLine(x)) : null

/** Every string of a JSON value made visible (a host's bytes never reach a terminal or a page raw). */
export function visibleJson(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return visible(v)
  if (depth > 64 || v === null || typeof v !== 'object') return v
  if (Array.isArray(v)) return v.map((x) => visibleJson(x, depth + 1))
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [visible(k), visibleJson(x, depth + 1)]))
}

/** A host's `cast run-verb` stdout as its result, or null when it is not one. */
export function parseHostResult(stdout: string): HostVerbOutcome | null {
  let raw: unknown
  try {
    raw = JSON.parse(stdout)
  } catch {
    return null
  }

  if (raw === null || typeof raw !== 'object') return null
  const r = raw as Record<string, unknown>
  const exit = typeof r.exit === 'number' && Number.isInteger(r.exit) && r.exit >= 0 && r.exit < 256 ? r.exit : null
  if (exit === null) return null
  const json = 'json' in r ? visibleJson(r.json) : undefined
  if (r.ok === true) {
    const lines = strings(r.lines, 10_000)
    const warnings = strings(r.warnings, 100)
    return lines && warnings ? {exit, json, lines, ok: true, warnings} : null
  }

  if (r.ok !== false || typeof r.line !== 'string') return null
  const hints = strings(r.hints ?? [], 20) ?? []
  return {exit: exit === 0 ? EXIT.FAILURE : exit, hints, line: oneLine(r.line), ok: false, ...(json === undefined ? {} : {json})}
}

/**
 * Runs one verb of the runner on the host: `cast run-verb NAME` with `input` (the verb's typed
 * input, its session ids already this host's own) as JSON on stdin. ssh's own failures are a
 * refusal: 1 unreachable, 5 the host key changed, 124 no answer within `timeoutMs`.
 */
export async function runOnHost(host: HostConfig, env: Env, name: string, input: unknown, timeoutMs: number): Promise<HostVerbOutcome> {
  const no = (line: string, exit: number): HostVerbOutcome => ({exit, hints: [], line: oneLine(line), ok: false})
  let line
  try {
    line = remoteCastCommand(`run-verb ${name}`, [], {json: false, separator: false})
  } catch (error) {
    return no(`${host.name}: ${(error as Error).message}`, EXIT.USAGE)
  }

  const r = await runSsh(hostSpec(host), env, line, {input: JSON.stringify(input), maxBytes: MAX_RESULT_BYTES, timeoutMs})
  const why = sshFailure(r, timeoutMs)
  if (why !== null) {
    const keyChanged = /host key changed/.test(why)
    const exit = r.timedOut ? EXIT.TIMEOUT : keyChanged ? EXIT.REFUSED : EXIT.FAILURE
    const tail = r.timedOut ? ' (the verb may or may not have run there: "cast sessions --fleet" shows its state)' : ''
    return no(`${host.name}: ${r.timedOut ? '' : 'unreachable — '}${why}${tail}`, exit)
  }

  const parsed = r.truncated ? null : parseHostResult(r.stdout)
  if (parsed) return parsed
  const said = r.stderr.split('\n').find((l) => l.trim() !== '')
  return no(
    `${host.name}: its cast answered no verb result (exit ${r.code}${said ? `: ${said.slice(0, 200)}` : ''}); a cast older than run-verb cannot act for the fleet: ${INSTALL_LINE}`,
    EXIT.FAILURE,
  )
}
