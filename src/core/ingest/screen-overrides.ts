/**
 * The config's `screen_patterns`, read synchronously for the screen sweep and the verbs that read a
 * pane (src/lib/agents/dialog.ts): the patterns that replace an agent's built-in ones per kind.
 */
import fs from 'node:fs'

import {isObject} from './screen-overlay.js'

/**
 * `screen_patterns` from the config file, read synchronously (the sweep runs inside synchronous
 * syncs). A missing or unparsable file gives none: the commands that load the config report its
 * errors.
 */
export function readScreenOverrides(file: string): Record<string, Record<string, string[]>> {
  let raw: unknown
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return {}
  }

  const sp = isObject(raw) ? raw['screen_patterns'] : undefined
  if (!isObject(sp)) return {}
  const out: Record<string, Record<string, string[]>> = {}
  for (const [agent, kinds] of Object.entries(sp)) {
    if (!isObject(kinds)) continue
    const k: Record<string, string[]> = {}
    for (const [kind, list] of Object.entries(kinds))
      if (Array.isArray(list)) k[kind] = list.filter((p): p is string => typeof p === 'string')
    out[agent] = k
  }

  return out
}
