/**
 * `cast sessions -w --json --fleet`: one long-lived ssh child per host running the host's own
 * `cast sessions -w --json --since SEQ`. Each line is checked, made visible, its ids namespaced
 * (`HOST:ID`) and `host` added. When the connection drops it is made again, with backoff, from the
 * last seq that host sent (its first seq comes from `cast daemon status --json`'s last_seq), and
 * a line at or below a seq already passed on is dropped: no transition lost, none twice.
 */
import {spawn} from 'node:child_process'

import type {HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {visible} from '../../core/model/wire.js'
import {hostSpec} from './hosts.js'
import {remoteCastCommand} from './remote-argv.js'
import {runSsh, sshCommandArgv, sshFailure} from './ssh.js'

const MAX_LINE = 1 << 20

export interface FleetWatchOptions {
  readonly write: (line: string) => void
  readonly log: (line: string) => void
  /** Filters for the host's stream (`--state=…`), as flags. */
  readonly flags: readonly string[]
  readonly signal: AbortSignal
  readonly connectTimeoutMs: number
}

/** One host's line as this machine prints it, or null when it is not a watch line. */
export function fleetWatchLine(host: string, line: string): {seq: number; key: string; out: string} | null {
  let raw: unknown
  try {
    raw = JSON.parse(line)
  } catch {
    return null
  }

  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null
  const r = raw as Record<string, unknown>
  if (typeof r.seq !== 'number' || !Number.isSafeInteger(r.seq) || typeof r.event !== 'string') return null
  const ns = (v: unknown): string | null => (typeof v === 'string' ? `${host}:${visible(v)}` : null)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(r)) out[visible(k)] = typeof v === 'string' ? visible(v) : v
  Object.assign(out, {host, id: ns(r.id), session_id: ns(r.session_id), short_id: ns(r.short_id)})
  return {key: `${r.event}:${String(r.session_id)}`, out: JSON.stringify(out), seq: r.seq}
}

/** The host's transitions log position now (its daemon status), or null. */
async function lastSeq(h: HostConfig, env: Env, timeoutMs: number): Promise<number | null> {
  const r = await runSsh(hostSpec(h), env, remoteCastCommand('daemon status', [], {separator: false}), {maxBytes: 65_536, timeoutMs})
  try {
    const seq = (JSON.parse(r.stdout) as {last_seq?: unknown}).last_seq
    return typeof seq === 'number' ? seq : null
  } catch {
    return null
  }
}

/** Streams one host until the signal aborts; never throws. */
export async function watchHost(h: HostConfig, env: Env, o: FleetWatchOptions): Promise<void> {
  let since: number | null = null
  const seenAtSince = new Set<string>()
  let backoff = 500
  while (!o.signal.aborted) {
    if (since === null) since = await lastSeq(h, env, o.connectTimeoutMs)
    if (since === null) {
      o.log(`${h.name}: unreachable — its cast daemon status did not answer; trying again in ${backoff / 1000} s`)
    } else {
      const flags = [...o.flags, `--since=${since}`]
      const why = await stream(h, env, remoteCastCommand('sessions', [], {flags: ['--watch', ...flags], separator: false}), o, (l) => {
        const w = fleetWatchLine(h.name, l)
        if (w === null) return
        backoff = 500
        if (since !== null && (w.seq < since || (w.seq === since && seenAtSince.has(w.key)))) return
        if (w.seq !== since) seenAtSince.clear()
        since = w.seq
        seenAtSince.add(w.key)
        o.write(w.out + '\n')
      })
      if (o.signal.aborted) return
      o.log(`${h.name}: stream dropped (${why}); resuming after seq ${since} in ${backoff / 1000} s`)
    }

    await new Promise((r) => setTimeout(r, backoff))
    backoff = Math.min(backoff * 2, 10_000)
  }
}

/** One ssh child reading lines; resolves with why it ended. */
function stream(h: HostConfig, env: Env, commandLine: string, o: FleetWatchOptions, onLine: (l: string) => void): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('ssh', sshCommandArgv(hostSpec(h), env, commandLine, o.connectTimeoutMs), {
      env: {...process.env, ...env},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const stop = (): void => {
      child.kill('SIGTERM')
    }
    o.signal.addEventListener('abort', stop, {once: true})
    let buf = ''
    let err = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (c: string) => {
      buf += c
      let i
      while ((i = buf.indexOf('\n')) >= 0) {
        onLine(buf.slice(0, i))
        buf = buf.slice(i + 1)
      }

      if (buf.length > MAX_LINE) buf = ''
    })
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 4096) err += b.toString('utf8')
    })
    child.once('error', (e) => resolve(`ssh could not start: ${e.message}`))
    child.once('close', (code, signal) => {
      o.signal.removeEventListener('abort', stop)
      const failed = sshFailure({code, spawnError: null, stderr: err, stdout: '', timedOut: false, truncated: false}, o.connectTimeoutMs)
      resolve(failed ?? (signal ? `ssh ended by ${signal}` : `exit ${code}`))
    })
  })
}
