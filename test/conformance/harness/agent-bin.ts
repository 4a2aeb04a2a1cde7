/**
 * Where the suite finds each agent CLI: the project's devDependencies (`node_modules/.bin`), or
 * the folder `CAST_CONFORMANCE_MODULES` names (a `node_modules` that `npm run conformance:latest`
 * filled with the newest published versions, scripts/conformance-latest.mjs).
 */
import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

/** The node_modules the agent CLIs come from. */
export function agentModules(): string {
  const dir = process.env['CAST_CONFORMANCE_MODULES']
  return dir ? path.resolve(dir) : path.join(REPO, 'node_modules')
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
