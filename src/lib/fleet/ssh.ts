/**
 * One ssh child per call: `ssh -T -o BatchMode=yes ... -- DEST 'cast' ...` (./host-spec.ts,
 * ./remote-argv.ts) with the person's own ssh config and agent, a time budget after which the child
 * is killed, and a bound on what is read back (the rest is dropped and the answer marked `truncated`).
 * CAST_SSH_CONFIG names another ssh config (`-F`), for tests and for a person who keeps one for cast.
 */
import {spawn} from 'node:child_process'

import type {Env} from '../home/env.js'
import {type HostSpec, sshArgv} from './host-spec.js'

export interface SshResult {
  /** The remote command's exit code; 255 is ssh's own failure (connect, host key, auth). */
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** The budget ran out: the child was killed. */
  readonly timedOut: boolean
  /** More than maxBytes came back on stdout: the rest was dropped. */
  readonly truncated: boolean
  /** The ssh binary itself could not start (ENOENT). */
  readonly spawnError: string | null
}

export interface SshOptions {
  readonly timeoutMs: number
  /** Bound on stdout (default 8 MiB); stderr keeps its first 8 KiB. */
  readonly maxBytes?: number
  readonly signal?: AbortSignal
  /** Written to the remote command's stdin, then closed (else it is closed at once: the remote reads EOF). */
  readonly input?: string
}

/** The options every call adds before the destination: -F when CAST_SSH_CONFIG is set. */
export function sshExtra(env: Env): string[] {
  const file = env.CAST_SSH_CONFIG?.trim()
  return file ? ['-F', file] : []
}

/** The full argv of ssh for a remote command line (already quoted, ./remote-argv.ts). */
export function sshCommandArgv(spec: HostSpec, env: Env, commandLine: string, timeoutMs: number): string[] {
  const connect = Math.max(1, Math.ceil(timeoutMs / 1000))
  return [...sshArgv(spec, connect, sshExtra(env)), commandLine]
}

/** Runs one remote command line over ssh; never throws. */
export function runSsh(spec: HostSpec, env: Env, commandLine: string, options: SshOptions): Promise<SshResult> {
  const maxBytes = options.maxBytes ?? 8 * 2 ** 20
  return new Promise((resolve) => {
    const out: Buffer[] = []
    let outBytes = 0
    let truncated = false
    let err = ''
    let timedOut = false
    let settled = false
    const child = spawn('ssh', sshCommandArgv(spec, env, commandLine, options.timeoutMs), {
      env: {...process.env, ...env},
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    // The remote may exit before it reads all of it (a refusal): that is its answer, not an error.
    child.stdin.on('error', () => {})
    child.stdin.end(options.input ?? '')

    const kill = (): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    const timer = setTimeout(() => {
      timedOut = true
      kill()
    }, options.timeoutMs)
    options.signal?.addEventListener('abort', kill, {once: true})
    child.stdout.on('data', (b: Buffer) => {
      if (truncated) return
      if (outBytes + b.length > maxBytes) {
        out.push(b.subarray(0, maxBytes - outBytes))
        outBytes = maxBytes
        truncated = true
        kill()
        return
      }

      out.push(b)
      outBytes += b.length
    })
    child.stderr.on('data', (b: Buffer) => {
      if (err.length < 8192) err += b.toString('utf8').slice(0, 8192 - err.length)
    })
    const done = (code: number | null, spawnError: string | null): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({code, spawnError, stderr: err, stdout: Buffer.concat(out).toString('utf8'), timedOut, truncated})
    }
    child.once('error', (e) => done(null, e.message))
    child.once('close', (code) => done(code, null))
  })
}

/** What went wrong, as one short phrase from ssh's own stderr ("ssh: connect to host ... timed out"). */
export function sshFailure(r: SshResult, budgetMs: number): string | null {
  if (r.spawnError !== null) return `ssh could not start: ${r.spawnError}`
  if (r.timedOut) return `no answer within ${budgetMs} ms`
  if (r.code === 255) {
    const lines = r.stderr
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('@@@'))
    const key = lines.find((l) => /host key|HOST IDENTIFICATION/i.test(l))
    if (key !== undefined || /HOST IDENTIFICATION HAS CHANGED/.test(r.stderr))
      return 'ssh: the host key changed (ssh refuses it: check known_hosts)'
    const last = lines.at(-1) ?? 'connection failed'
    return last.startsWith('ssh:') ? last : `ssh: ${last}`
  }

  return null
}
