/**
 * The `team` key of the config file, written by `cast team join` and removed by `cast team leave`
 * (0600: a URL may carry credentials). Other keys are left as they were.
 */
import fs from 'node:fs'
import path from 'node:path'

/** Set team.url / team.name in the config file (mode 0600: it may hold a password), keeping every other key. */
export function writeTeamConfig(file: string, team: {url?: string; name?: string} | null): void {
  let raw: Record<string, unknown> = {}
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch {
    raw = {}
  }

  const cur = raw.team
  const obj: Record<string, unknown> = Array.isArray(cur)
    ? cur.length > 0
      ? {members: cur}
      : {}
    : typeof cur === 'object' && cur !== null
      ? {...cur}
      : {}
  if (team === null) {
    delete obj.url
    delete obj.name
  } else {
    if (team.url !== undefined) obj.url = team.url
    if (team.name !== undefined) obj.name = team.name
  }

  if (Object.keys(obj).length === 0) delete raw.team
  else if (Object.keys(obj).length === 1 && Array.isArray(obj.members)) raw.team = obj.members
  else raw.team = obj
  fs.mkdirSync(path.dirname(file), {mode: 0o700, recursive: true})
  fs.writeFileSync(file, JSON.stringify(raw, null, 2) + '\n', {mode: 0o600})
  fs.chmodSync(file, 0o600)
}
