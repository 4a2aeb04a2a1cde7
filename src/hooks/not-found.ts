/**
 * `cast sesions`: name the nearest command or topic and exit 2 (usage), as gh and kubectl do.
 * @oclif/plugin-not-found 4.x needs Node 22 (`npm view @oclif/plugin-not-found engines`), and
 * 3.x asks y/n on a TTY and exits 127; this hook keeps to cast's exit table and, under --json,
 * prints the one error envelope.
 */
import type {Hook} from '@oclif/core'

import {errorEnvelope, humanError} from '../lib/errors.js'
import {EXIT} from '../lib/exit-codes.js'

export function distance(a: string, b: string): number {
  const prev = Array.from({length: b.length + 1}, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!
    prev[0] = i
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1))
      diag = up
    }
  }

  return prev[b.length]!
}

/** The nearest ids to what was typed (at most 3, within a distance that still looks like a typo). */
export function nearest(typed: string, ids: readonly string[]): string[] {
  const scored = ids
    .map((id) => ({d: Math.min(distance(typed, id), id.startsWith(typed) && typed.length >= 2 ? 1 : 99), id}))
    .filter((s) => s.d <= Math.max(2, Math.floor(typed.length / 3)))
    .sort((x, y) => x.d - y.d || x.id.localeCompare(y.id))
  return scored.slice(0, 3).map((s) => s.id)
}

const hook: Hook.CommandNotFound = function (opts) {
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const topics = opts.config.topics.map((t) => t.name)
  const all = [...new Set([...ids, ...topics])]
  const typed = opts.id
  // oclif joins the arguments into the id (`hooks:instal:<agent>`): name the topics and the first unknown word.
  const parts = typed.split(':')
  let keep = 1
  while (keep < parts.length && topics.includes(parts.slice(0, keep).join(':'))) keep++
  const shown = parts.slice(0, keep).join(' ')
  const near = nearest(parts.slice(0, Math.max(keep, 1)).join(':'), all).map((id) => `cast ${id.replaceAll(':', ' ')}`)
  const message = `"${shown}" is not a cast command.`
  const suggestions =
    near.length > 0 ? [`Did you mean: ${near.join(', ')}?`, 'Run "cast help" for every command.'] : ['Run "cast help" for every command.']
  const argv = opts.argv ?? []
  const dash = argv.indexOf('--')
  const json = (dash === -1 ? argv : argv.slice(0, dash)).includes('--json')
  if (json) process.stdout.write(JSON.stringify(errorEnvelope(message, EXIT.USAGE, suggestions)) + '\n')
  else process.stderr.write(humanError(message, suggestions))
  process.exitCode = EXIT.USAGE
  return Promise.resolve()
}

export default hook
