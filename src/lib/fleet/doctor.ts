/**
 * `cast doctor` on each host of `cast hosts`, in parallel: reachable and its cast's version
 * (./hosts.ts checkHost), whether its daemon holds the ingester lease there (`cast daemon status
 * --json`), and the clock skew against this machine (the host's `generated_at` of
 * `cast sessions --json --state working` against the middle of the round trip).
 */
import type {CastConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {checkHost, hostSpec} from './hosts.js'
import {remoteCastCommand} from './remote-argv.js'
import {runSsh} from './ssh.js'

export interface DoctorHostJson {
  name: string
  target: string
  reachable: boolean
  version: string | null
  daemon_running: boolean | null
  clock_skew_ms: number | null
  /** What is wrong, one line; null when nothing. */
  problem: string | null
}

/** Skew beyond this (ms, on top of half the round trip) is a problem: time rules differ between machines. */
export const MAX_SKEW_MS = 5000

export async function doctorHosts(config: Pick<CastConfig, 'hosts'>, env: Env, timeoutMs = 20_000): Promise<DoctorHostJson[]> {
  return Promise.all(
    (config.hosts ?? []).map(async (h): Promise<DoctorHostJson> => {
      const base = {clock_skew_ms: null, daemon_running: null, name: h.name, target: h.target}
      let spec
      try {
        spec = hostSpec(h)
      } catch (error) {
        return {...base, problem: `${h.name}: config: ${(error as Error).message}`, reachable: false, version: null}
      }

      const c = await checkHost(spec, env, timeoutMs)
      if (!c.ok) return {...base, problem: c.line, reachable: c.problem !== 'unreachable', version: c.version}
      const [daemon, clock] = await Promise.all([
        runSsh(spec, env, remoteCastCommand('daemon status', [], {separator: false}), {maxBytes: 65_536, timeoutMs}),
        (async () => {
          const t0 = Date.now()
          const r = await runSsh(spec, env, remoteCastCommand('sessions', [], {flags: ['--state=working'], separator: false}), {timeoutMs})
          const t1 = Date.now()
          try {
            const at = Date.parse((JSON.parse(r.stdout) as {generated_at: string}).generated_at)
            return Number.isNaN(at) ? null : {rtt: t1 - t0, skew: at - (t0 + t1) / 2}
          } catch {
            return null
          }
        })(),
      ])
      let running: boolean | null = null
      try {
        running = (JSON.parse(daemon.stdout) as {running?: unknown}).running === true
      } catch {
        running = null
      }

      const skew = clock === null ? null : Math.round(clock.skew)
      const problems: string[] = []
      if (running === false) problems.push('its daemon is not running there ("cast daemon" on it keeps its listing current)')
      if (running === null) problems.push('"cast daemon status" did not answer there')
      if (clock !== null && Math.abs(clock.skew) > MAX_SKEW_MS + clock.rtt / 2)
        problems.push(`its clock is ${Math.round(clock.skew / 1000)} s off this machine's`)
      return {
        ...base,
        clock_skew_ms: skew,
        daemon_running: running,
        problem: problems.length > 0 ? `${h.name}: ${problems.join('; ')}` : null,
        reachable: true,
        version: c.version,
      }
    }),
  )
}

/** One line per host for the human report. */
export function doctorHostLine(h: DoctorHostJson): string {
  if (h.problem !== null && !h.reachable) return `✗ ${h.problem}`
  const bits = [
    `cast ${h.version ?? '?'}`,
    h.daemon_running ? 'daemon running' : 'no daemon',
    h.clock_skew_ms === null ? 'clock ?' : `clock ${h.clock_skew_ms >= 0 ? '+' : ''}${h.clock_skew_ms} ms`,
  ]
  return `${h.problem === null ? '✓' : '!'} ${h.name} (${h.target}): ${bits.join(', ')}${h.problem === null ? '' : ` — ${h.problem.slice(h.name.length + 2)}`}`
}
