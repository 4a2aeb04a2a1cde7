/**
 * A verb on a session of another host (`cast approve laptop:abcd1234`): the session's `HOST:` names
 * the host, and the verb runs there as the host's own `cast <verb> [--json] [flags] -- args` over the
 * same ssh (./remote-argv.ts quotes every word), so the host's verb runner and its evidence rules
 * decide and its store keeps the triage. What comes back (the outcome line or JSON and the exit code)
 * is passed on unchanged, bounded and made visible.
 */
import type {HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {EXIT} from '../base/exit-codes.js'
import {hostSpec} from './hosts.js'
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

/** One token of the local command line, as oclif parsed it (its `raw`). */
export type RawToken = {type: 'flag'; flag: string; input: string} | {type: 'arg'; input: string}

/**
 * The remote flags and positionals from the local command line: the host prefix taken off each
 * session argument (those in `sessions`), booleans as `--name`/`--no-name`, values glued on (`--name=value`); `json`,
 * `timeout` and `no-wait` are this machine's.
 */
export function remoteWords(
  raw: readonly RawToken[],
  booleans: ReadonlySet<string>,
  hostName: string,
  sessions: ReadonlySet<string>,
  substitute: (positional: string, index: number) => string = (p) => p,
): {flags: string[]; args: string[]} {
  const flags: string[] = []
  const args: string[] = []
  for (const t of raw) {
    if (t.type === 'arg') {
      // Only a session argument loses its host (a label or a message that starts with "laptop:" is text).
      const v = sessions.has(t.input) && t.input.startsWith(`${hostName}:`) ? t.input.slice(hostName.length + 1) : t.input
      args.push(substitute(v, args.length))
      continue
    }

    if (t.flag === 'json' || t.flag === 'timeout' || t.flag === 'no-wait') continue
    if (booleans.has(t.flag)) flags.push(t.input.startsWith('--no-') ? `--no-${t.flag}` : `--${t.flag}`)
    else flags.push(`--${t.flag}=${t.input}`)
  }

  return {args, flags}
}

export interface RemoteVerbOutcome {
  readonly exit: number
  /** stdout as the host's cast printed it, made visible (JSON re-serialized). */
  readonly stdout: string
  /** stderr lines, made visible, each one line. */
  readonly stderr: string[]
}

const CONTROL_IN_JSON = /[\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g

/** Runs `cast <verb> ...` on the host; its exit code and output come back, or one line of why not. */
export async function runRemoteVerb(
  host: HostConfig,
  env: Env,
  verb: string,
  words: {flags: readonly string[]; args: readonly string[]},
  options: {json: boolean; timeoutMs: number},
): Promise<RemoteVerbOutcome> {
  let line
  try {
    line = remoteCastCommand(verb, words.args, {flags: words.flags, json: options.json})
  } catch (error) {
    return {exit: EXIT.USAGE, stderr: [`${host.name}: ${(error as Error).message}`], stdout: ''}
  }

  const r = await runSsh(hostSpec(host), env, line, {maxBytes: 4 * 2 ** 20, timeoutMs: options.timeoutMs})
  const why = sshFailure(r, options.timeoutMs)
  if (why !== null) {
    const keyChanged = /host key changed/.test(why)
    const exit = r.timedOut ? EXIT.TIMEOUT : keyChanged ? EXIT.REFUSED : EXIT.FAILURE
    const tail = r.timedOut ? ' (the verb may or may not have run there: "cast sessions --fleet" shows its state)' : ''
    return {exit, stderr: [oneLine(`${host.name}: ${r.timedOut ? '' : 'unreachable — '}${why}${tail}`)], stdout: ''}
  }

  const stderr = r.stderr
    .split('\n')
    .filter((l) => l.trim() !== '')
    .slice(0, 20)
    .map((l) => oneLine(l))
  let stdout: string
  if (options.json) {
    try {
      stdout =
        JSON.stringify(JSON.parse(r.stdout), null, 2).replace(
          CONTROL_IN_JSON,
          (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`,
        ) + '\n'
    } catch {
      return {
        exit: EXIT.FAILURE,
        stderr: [`${host.name}: its cast ${verb} answered ${r.stdout.length} bytes that are not JSON (exit ${r.code})`],
        stdout: '',
      }
    }
  } else {
    stdout = r.stdout === '' ? '' : visible(r.stdout.endsWith('\n') ? r.stdout : r.stdout + '\n')
  }

  if (r.truncated) stderr.push(`${host.name}: its answer was cut off at 4 MiB`)
  return {exit: r.code ?? EXIT.FAILURE, stderr, stdout}
}
