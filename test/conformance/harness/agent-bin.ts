/**
 * Where the suite finds each agent CLI: the folder `CAST_CONFORMANCE_MODULES` names (a
 * `node_modules` that `npm run conformance:latest` filled with the newest published versions,
 * scripts/conformance-latest.mjs), else the pinned versions `npm run conformance:setup` installed
 * into $CAST_CONFORMANCE_DIR or ~/.cache/cast-conformance (scripts/conformance-dir.mjs, the same
 * rule). The project's own `npm ci` does not install them.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** The node_modules the agent CLIs come from. */
export function agentModules(): string {
  const dir = process.env['CAST_CONFORMANCE_MODULES']
  if (dir) return path.resolve(dir)
  const setup = process.env['CAST_CONFORMANCE_DIR'] || path.join(os.homedir(), '.cache', 'cast-conformance')
  return path.join(path.resolve(setup), 'node_modules')
}

/** The CLI's entry (`<modules>/.bin/<name>`). */
export function agentBin(name: string): string {
  return path.join(agentModules(), '.bin', name)
}

/** The installed version of an agent package ('?' when it cannot be read). */
export function agentVersion(pkg: string): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(agentModules(), pkg, 'package.json'), 'utf8')) as {version: string}).version
  } catch {
    return '?'
  }
}
