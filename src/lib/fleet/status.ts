/**
 * `cast status --fleet`: each host's own `cast status --json` over ssh, at once and each within its
 * budget (./fleet.ts budgetOf), summed with this machine's counts; the hosts that did not answer are
 * named at the end of the one line ("laptop, gpu unreachable").
 */
import type {CastConfig, HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {budgetOf} from './fleet.js'
import {hostSpec} from './hosts.js'
import {remoteCastCommand} from './remote-argv.js'
import {runSsh, sshFailure} from './ssh.js'
import {oneLine} from '../../core/model/wire.js'

/** The counts `cast status --json` prints (src/lib/notify/status.ts StatusCounts). */
export const STATUS_COUNT_FIELDS = ['need', 'questions', 'needs_input', 'quiet', 'working', 'done'] as const
export type FleetCounts = Record<(typeof STATUS_COUNT_FIELDS)[number], number>

export interface HostStatusJson {
  readonly name: string
  readonly status: 'ok' | 'unreachable' | 'garbage'
  /** Why not, one line; null when ok. */
  readonly error: string | null
  /** Its counts; null when it did not answer (or answered "not yet synced"). */
  readonly counts: FleetCounts | null
}

/** A host's `cast status --json` stdout as its counts, or null. */
export function parseHostStatus(stdout: string): {counts: FleetCounts | null} | null {
  let raw: unknown
  try {
    raw = JSON.parse(stdout)
  } catch {
    return null
  }

  if (raw === null || typeof raw !== 'object') return null
  const r = raw as Record<string, unknown>
  if (r.synced === false) return {counts: null}
  const counts = {} as FleetCounts
  for (const k of STATUS_COUNT_FIELDS) {
    const v = r[k]
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return null
    counts[k] = v
  }

  return {counts}
}

export async function hostStatus(h: HostConfig, env: Env, budgetMs: number): Promise<HostStatusJson> {
  const no = (status: 'unreachable' | 'garbage', error: string): HostStatusJson => ({
    counts: null,
    error: oneLine(error),
    name: h.name,
    status,
  })
  let spec
  try {
    spec = hostSpec(h)
  } catch (error) {
    return no('garbage', `config: ${(error as Error).message}`)
  }

  const r = await runSsh(spec, env, remoteCastCommand('status', [], {flags: ['--no-fleet'], separator: false}), {
    maxBytes: 64 * 1024,
    timeoutMs: budgetMs,
  })
  const why = sshFailure(r, budgetMs)
  if (why !== null) return no('unreachable', why)
  const parsed = r.code === 0 && !r.truncated ? parseHostStatus(r.stdout) : null
  if (!parsed) return no('garbage', `its cast status answered no counts (exit ${r.code})`)
  return {counts: parsed.counts, error: null, name: h.name, status: 'ok'}
}

export function fleetStatus(config: Pick<CastConfig, 'fleet' | 'hosts'>, env: Env): Promise<HostStatusJson[]> {
  return Promise.all((config.hosts ?? []).map((h) => hostStatus(h, env, budgetOf(h, config))))
}

/** This machine's counts plus each host's that answered. */
export function sumCounts(local: FleetCounts, hosts: readonly HostStatusJson[]): FleetCounts {
  const sum = {...local}
  for (const h of hosts) if (h.counts) for (const k of STATUS_COUNT_FIELDS) sum[k] += h.counts[k]
  return sum
}

/** The tail of the line naming every host that did not answer, or '' when all did. */
export function downTail(hosts: readonly HostStatusJson[]): string {
  const down = hosts.filter((h) => h.status !== 'ok').map((h) => h.name)
  return down.length === 0 ? '' : ` · ${down.join(', ')} unreachable`
}
