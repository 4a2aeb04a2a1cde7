/**
 * Which version of each agent CLI is installed: the binary on PATH, followed
 * through npm's symlink to its package.json (no process started); else its `--version` output.
 * Compared with the version the conformance suite last passed with (the adapter's `cli`).
 */
import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

export interface AgentCliVersion {
  readonly bin: string
  /** Where the binary was found on PATH, or null when it is not installed. */
  readonly path: string | null
  readonly installed: string | null
  readonly tested: string
  /** 'newer': installed after the last conformance pass; 'older', 'same', or 'unknown'. */
  readonly compared: 'newer' | 'older' | 'same' | 'unknown' | 'missing'
}

export function findOnPath(bin: string, envPath: string | undefined): string | null {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue
    const p = path.join(dir, bin)
    try {
      fs.accessSync(p, fs.constants.X_OK)
      if (fs.statSync(p).isFile()) return p
    } catch {
      // not here
    }
  }

  return null
}

/** The version in the package.json of `pkg` that holds the real path of `binPath`, if any. */
export function packageVersion(binPath: string, pkg: string): string | null {
  let dir: string
  try {
    dir = path.dirname(fs.realpathSync(binPath))
  } catch {
    return null
  }

  for (let i = 0; i < 6; i++) {
    try {
      const json = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {name?: unknown; version?: unknown}
      if (json.name === pkg && typeof json.version === 'string') return json.version
    } catch {
      // no package.json here
    }

    const up = path.dirname(dir)
    if (up === dir) break
    dir = up
  }

  return null
}

const SEMVER = /(\d+)\.(\d+)\.(\d+)/

/** -1, 0, 1 over the first x.y.z of each; null when either has none. */
export function compareVersions(a: string, b: string): number | null {
  const x = SEMVER.exec(a)
  const y = SEMVER.exec(b)
  if (!x || !y) return null
  for (let i = 1; i <= 3; i++) {
    const d = Number(x[i]) - Number(y[i])
    if (d !== 0) return d > 0 ? 1 : -1
  }

  return 0
}

export function cliVersion(cli: {bin: string; package: string; testedVersion: string}, envPath: string | undefined): AgentCliVersion {
  const found = findOnPath(cli.bin, envPath)
  if (found === null) return {bin: cli.bin, compared: 'missing', installed: null, path: null, tested: cli.testedVersion}
  let installed = packageVersion(found, cli.package)
  if (installed === null) {
    try {
      const out = execFileSync(found, ['--version'], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000})
      installed = SEMVER.exec(out)?.[0] ?? null
    } catch {
      installed = null
    }
  }

  const c = installed === null ? null : compareVersions(installed, cli.testedVersion)
  const compared = c === null ? 'unknown' : c > 0 ? 'newer' : c < 0 ? 'older' : 'same'
  return {bin: cli.bin, compared, installed, path: found, tested: cli.testedVersion}
}
