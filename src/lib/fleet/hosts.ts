/**
 * The `hosts` key of cast's config file (src/lib/home/config.ts): `cast hosts add` writes one entry
 * `{"target": "[user@]host[:port]"}` under its name, `cast hosts remove` deletes it; every other key
 * is left as it was (mode 0600, as src/lib/team/config-file.ts writes the file). Also the version
 * check of `cast hosts add` and `cast hosts test`: the remote `cast --version`.
 */
import fs from 'node:fs'
import path from 'node:path'

import type {HostConfig} from '../home/config-shape.js'
import type {Env} from '../home/env.js'
import {type HostSpec, parseHostSpec} from './host-spec.js'
import {remoteCastCommand} from './remote-argv.js'
import {runSsh, sshFailure} from './ssh.js'

/** The oldest remote cast the fleet speaks to: its `sessions --json` and `-w --json --since` shapes. */
export const MIN_REMOTE_VERSION = '0.1.0'
/** What a person runs on a host that lacks cast (README "Install"). */
export const INSTALL_LINE = 'npm install -g ./cast-inbox-<version>.tgz (README "Install"), on a PATH a non-login ssh shell sees'

function readRaw(file: string): Record<string, unknown> {
  try {
    const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown
    return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {}
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw error
  }
}

function writeRaw(file: string, raw: Record<string, unknown>): void {
  fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
  const tmp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(raw, null, 2) + '\n', {mode: 0o600})
  fs.renameSync(tmp, file)
}

/** Adds (or replaces) host NAME in the config file. */
export function writeHost(file: string, spec: HostSpec, target: string): void {
  const raw = readRaw(file)
  const hosts = typeof raw.hosts === 'object' && raw.hosts !== null ? {...(raw.hosts as Record<string, unknown>)} : {}
  const prev = hosts[spec.name]
  hosts[spec.name] = {...(typeof prev === 'object' && prev !== null ? prev : {}), target}
  raw.hosts = hosts
  writeRaw(file, raw)
}

/** Removes host NAME; false when it was not there. */
export function removeHost(file: string, name: string): boolean {
  const raw = readRaw(file)
  const hosts = typeof raw.hosts === 'object' && raw.hosts !== null ? {...(raw.hosts as Record<string, unknown>)} : {}
  if (!Object.hasOwn(hosts, name)) return false
  delete hosts[name]
  if (Object.keys(hosts).length === 0) delete raw.hosts
  else raw.hosts = hosts
  writeRaw(file, raw)
  return true
}

/** A configured host as ssh reaches it (its target parsed again: the file may have been edited by hand). */
export function hostSpec(h: HostConfig): HostSpec {
  return parseHostSpec(h.name, h.target)
}

/** "0.1.0" < "0.2.0": numeric, part by part. */
export function versionBelow(v: string, min: string): boolean {
  const a = v.split('.').map(Number)
  const b = min.split('.').map(Number)
  for (let i = 0; i < 3; i++) {
    const x = a[i] ?? 0
    const y = b[i] ?? 0
    if (x !== y) return x < y
  }

  return false
}

export type HostCheck =
  | {readonly ok: true; readonly version: string; readonly ms: number}
  | {
      readonly ok: false
      readonly problem: 'unreachable' | 'missing' | 'too_old' | 'garbage'
      readonly line: string
      readonly version: string | null
    }

/** `cast --version` on the host: reachable, cast there, new enough. One line when not. */
export async function checkHost(spec: HostSpec, env: Env, timeoutMs: number): Promise<HostCheck> {
  const t0 = Date.now()
  const r = await runSsh(spec, env, remoteCastCommand('--version', [], {json: false, separator: false}), {maxBytes: 4096, timeoutMs})
  const failed = sshFailure(r, timeoutMs)
  if (failed !== null) return {line: `${spec.name}: unreachable — ${failed}`, ok: false, problem: 'unreachable', version: null}
  if (r.code === 127 || /not found|No such file/i.test(r.stderr)) {
    return {
      line: `${spec.name}: cast is not installed there (or not on ssh's PATH): install it with ${INSTALL_LINE}`,
      ok: false,
      problem: 'missing',
      version: null,
    }
  }

  const m = /^cast-inbox\/(\d+\.\d+\.\d+)/.exec(r.stdout.trim())
  if (r.code !== 0 || !m)
    return {
      line: `${spec.name}: "cast --version" did not answer as cast does (exit ${r.code})`,
      ok: false,
      problem: 'garbage',
      version: null,
    }
  const version = m[1]!
  if (versionBelow(version, MIN_REMOTE_VERSION)) {
    return {
      line: `${spec.name}: cast ${version} there is older than ${MIN_REMOTE_VERSION}: upgrade it with ${INSTALL_LINE}`,
      ok: false,
      problem: 'too_old',
      version,
    }
  }

  return {ms: Date.now() - t0, ok: true, version}
}
